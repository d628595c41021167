#!/usr/bin/env python3
"""The S3 tests' own client of their private moto server, with boto3 (an
independent implementation of S3 and of AWS Signature Version 4).

    moto_admin.py URL CA_PEM setup BUCKET       # an IAM user with an access key
                                                # that may do everything, and the
                                                # bucket; prints {"access_key_id",
                                                # "secret_access_key"}
    moto_admin.py URL CA_PEM delete-bucket|create-bucket BUCKET KEY_ID SECRET
                                                # an empty bucket gone, made again
    moto_admin.py URL CA_PEM read BUCKET KEY_ID SECRET
                                                # every object of BUCKET: prints
                                                # [{"key", "etag", "content_type",
                                                # "metadata", "body_b64"}]

The server runs with INITIAL_NO_AUTH_ACTION_COUNT: the first actions (the
set-up's) need no credentials, every later request must be signed with the
user's access key, so a Relay request with a wrong signature is refused as a
real service refuses it.
"""
import base64
import json
import sys

import boto3
from botocore.config import Config


def client(service, url, ca, key_id="setup", secret="setup"):
    return boto3.client(
        service,
        endpoint_url=url,
        verify=ca,
        region_name="us-east-1",
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )


def setup(url, ca, bucket):
    iam = client("iam", url, ca)
    iam.create_user(UserName="relay")
    key = iam.create_access_key(UserName="relay")["AccessKey"]
    iam.put_user_policy(
        UserName="relay",
        PolicyName="everything",
        PolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
            }
        ),
    )
    client("s3", url, ca).create_bucket(Bucket=bucket)
    print(json.dumps({"access_key_id": key["AccessKeyId"], "secret_access_key": key["SecretAccessKey"]}))


def read(url, ca, bucket, key_id, secret):
    s3 = client("s3", url, ca, key_id, secret)
    out = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            obj = s3.get_object(Bucket=bucket, Key=item["Key"])
            out.append(
                {
                    "key": item["Key"],
                    "etag": obj["ETag"].strip('"'),
                    "content_type": obj.get("ContentType"),
                    "metadata": obj.get("Metadata", {}),
                    "body_b64": base64.b64encode(obj["Body"].read()).decode(),
                }
            )
    print(json.dumps(out))


def bucket(url, ca, verb, name, key_id, secret):
    s3 = client("s3", url, ca, key_id, secret)
    if verb == "delete-bucket":
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=name):
            for item in page.get("Contents", []):
                s3.delete_object(Bucket=name, Key=item["Key"])
        s3.delete_bucket(Bucket=name)
    else:
        s3.create_bucket(Bucket=name)
    print("{}")


def main():
    url, ca, verb = sys.argv[1:4]
    if verb == "setup":
        setup(url, ca, sys.argv[4])
    elif verb in ("delete-bucket", "create-bucket"):
        bucket(url, ca, verb, *sys.argv[4:7])
    elif verb == "read":
        read(url, ca, *sys.argv[4:7])
    else:
        sys.exit(f"unknown verb {verb}")


if __name__ == "__main__":
    main()
