#!/usr/bin/env python3
"""The SQS tests' own client of their private moto server, with boto3 (an
independent implementation of SQS's protocol and of AWS Signature Version 4).

    moto_admin.py URL CA_PEM setup QUEUE...
        # three IAM users, each with an access key: "relay", whose policy
        # allows only sqs:SendMessage on the queues and sts:AssumeRole of
        # the role "relay-sender" (which may sqs:SendMessage on them);
        # "reader", allowed everything; "denied", with no policy at all.
        # Then the role, then the queues
        # (a name ending in .fifo is a FIFO queue, without content-based
        # deduplication). Prints {"relay": [id, secret], "reader": [...],
        # "denied": [...], "queues": {name: url}}.
    moto_admin.py URL CA_PEM drain KEY_ID SECRET QUEUE_URL
        # receives every message of the queue and deletes it: prints
        # [{"body_b64", "attributes": {name: value}, "system": {...}}], in
        # the order received

The server runs with INITIAL_NO_AUTH_ACTION_COUNT set to exactly the
set-up's actions (SETUP_ACTIONS in moto.rs: 3 per user with a policy, 2 for
"denied", 2 for the role, 1 per queue): every later request must be signed with a user's
access key, and moto checks the user's IAM policy, so a request with a wrong
signature or without sqs:SendMessage is refused as AWS refuses it.
"""
import base64
import json
import sys

import boto3

ROLE = "arn:aws:iam::123456789012:role/relay-sender"
from botocore.config import Config
from botocore.exceptions import ClientError


def client(service, url, ca, key_id="setup", secret="setup"):
    return boto3.client(
        service,
        endpoint_url=url,
        verify=ca,
        region_name="us-east-1",
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1}),
    )


def user(iam, name, policy):
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    if policy is not None:
        iam.put_user_policy(UserName=name, PolicyName=name, PolicyDocument=json.dumps(policy))
    return [key["AccessKeyId"], key["SecretAccessKey"]]


def setup(url, ca, names):
    iam = client("iam", url, ca)
    arns = [f"arn:aws:sqs:us-east-1:123456789012:{n}" for n in names]
    out = {
        "relay": user(
            iam,
            "relay",
            {
                "Version": "2012-10-17",
                "Statement": [
                    {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": arns},
                    {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": ROLE},
                ],
            },
        ),
        "reader": user(
            iam,
            "reader",
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]},
        ),
        "denied": user(iam, "denied", None),
        "queues": {},
    }
    # A role "relay-sender" that may send to the queues (trusting anyone:
    # moto does not check a trust policy's ExternalId condition; Relay's
    # own tests hold that rule).
    iam.create_role(
        RoleName="relay-sender",
        AssumeRolePolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}],
            }
        ),
    )
    iam.put_role_policy(
        RoleName="relay-sender",
        PolicyName="send",
        PolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": arns}],
            }
        ),
    )
    sqs = client("sqs", url, ca)
    for n in names:
        out["queues"][n] = create(sqs, n)
    # The set-up's actions were counted exactly: the next request is checked.
    try:
        client("sqs", url, ca, out["relay"][0], "not-the-secret").get_queue_url(QueueName=names[0])
    except ClientError as e:
        # moto answers this refusal in XML, which botocore's JSON parser
        # leaves whole in the message.
        if "SignatureDoesNotMatch" not in str(e):
            raise
    else:
        sys.exit("moto took a request with a wrong signature: INITIAL_NO_AUTH_ACTION_COUNT is too high")
    print(json.dumps(out))


def create(sqs, name):
    attributes = {"FifoQueue": "true"} if name.endswith(".fifo") else {}
    return sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]


def drain(url, ca, key_id, secret, queue_url):
    sqs = client("sqs", url, ca, key_id, secret)
    out = []
    while True:
        got = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=10,
            MessageAttributeNames=["All"],
            MessageSystemAttributeNames=["All"],
            WaitTimeSeconds=0,
        ).get("Messages", [])
        if not got:
            break
        for m in got:
            out.append(
                {
                    "body_b64": base64.b64encode(m["Body"].encode()).decode(),
                    "md5_of_body": m.get("MD5OfBody"),
                    "md5_of_attributes": m.get("MD5OfMessageAttributes"),
                    "attributes": {
                        k: v.get("StringValue") for k, v in m.get("MessageAttributes", {}).items()
                    },
                    "system": m.get("Attributes", {}),
                }
            )
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])
    print(json.dumps(out))


def main():
    url, ca, verb = sys.argv[1:4]
    if verb == "setup":
        setup(url, ca, sys.argv[4:])
    elif verb == "drain":
        drain(url, ca, *sys.argv[4:7])
    else:
        sys.exit(f"unknown verb {verb}")


if __name__ == "__main__":
    main()
