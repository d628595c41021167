"""What the AWS kinds' moto_admin.py scripts share (tests/<kind>/moto_admin.py,
each the boto3 client of its tests' private moto server; common/moto.rs runs
them as `moto_admin.py URL CA_PEM VERB ARGS...` and reads the JSON they print).

The server runs with INITIAL_NO_AUTH_ACTION_COUNT set to exactly the number of
the set-up's actions (each script says how it counts): every later request must
be signed with a user's access key, and moto checks the user's IAM policy.
"""
import base64
import json
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def client(service, url, ca, key_id="setup", secret="setup", **config):
    return boto3.client(
        service,
        endpoint_url=url,
        verify=ca,
        region_name="us-east-1",
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1}, **config),
    )


def user(iam, name, policy):
    """An IAM user with an access key, and its inline policy unless None:
    3 actions (2 without a policy). Returns [key id, secret]."""
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    if policy is not None:
        iam.put_user_policy(UserName=name, PolicyName=name, PolicyDocument=json.dumps(policy))
    return [key["AccessKeyId"], key["SecretAccessKey"]]


def allow(*statements):
    """A policy of Allow statements, each (actions, resources)."""
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": a, "Resource": r} for a, r in statements],
    }


def expect_refused(call):
    """The set-up's actions were counted exactly: `call` (a request with a
    wrong signature) must be refused, else the count was too high."""
    try:
        call()
    except ClientError as e:
        # moto may answer this refusal in XML, which botocore's JSON parser
        # leaves whole in the message.
        if "SignatureDoesNotMatch" not in str(e):
            raise
    else:
        sys.exit("moto took a request with a wrong signature: INITIAL_NO_AUTH_ACTION_COUNT is too high")


def drain(url, ca, key_id, secret, queue_url):
    """Receives every message of an SQS queue and deletes it: prints
    [{"body_b64", "md5_of_body", "md5_of_attributes", "attributes": {name:
    value}, "system": {...}}], in the order received."""
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


def main(verbs):
    """Runs `verbs[VERB](URL, CA_PEM, *ARGS)` from the command line."""
    url, ca, verb = sys.argv[1:4]
    if verb not in verbs:
        sys.exit(f"unknown verb {verb}")
    verbs[verb](url, ca, *sys.argv[4:])
