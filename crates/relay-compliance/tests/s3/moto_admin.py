#!/usr/bin/env python3
"""The S3 tests' own client of their private moto server, with boto3 (an
independent implementation of S3 and of AWS Signature Version 4), on the
helpers of common/moto_common.py.

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

The set-up's actions (SETUP_ACTIONS in s3/moto.rs): the user's 3, the
bucket's 1. A Relay request with a wrong signature is then refused as a real
service refuses it.
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from moto_common import allow, client, main, user  # noqa: E402


def s3(url, ca, key_id="setup", secret="setup"):
    return client("s3", url, ca, key_id, secret, s3={"addressing_style": "path"})


def setup(url, ca, bucket):
    key = user(client("iam", url, ca), "relay", allow(("*", "*")))
    s3(url, ca).create_bucket(Bucket=bucket)
    print(json.dumps({"access_key_id": key[0], "secret_access_key": key[1]}))


def read(url, ca, bucket, key_id, secret):
    c = s3(url, ca, key_id, secret)
    out = []
    for page in c.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            obj = c.get_object(Bucket=bucket, Key=item["Key"])
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


def delete_bucket(url, ca, name, key_id, secret):
    c = s3(url, ca, key_id, secret)
    for page in c.get_paginator("list_objects_v2").paginate(Bucket=name):
        for item in page.get("Contents", []):
            c.delete_object(Bucket=name, Key=item["Key"])
    c.delete_bucket(Bucket=name)
    print("{}")


def create_bucket(url, ca, name, key_id, secret):
    s3(url, ca, key_id, secret).create_bucket(Bucket=name)
    print("{}")


if __name__ == "__main__":
    main({"setup": setup, "read": read, "delete-bucket": delete_bucket, "create-bucket": create_bucket})
