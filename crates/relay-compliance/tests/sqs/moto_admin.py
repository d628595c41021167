#!/usr/bin/env python3
"""The SQS tests' own client of their private moto server, with boto3 (an
independent implementation of SQS's protocol and of AWS Signature Version 4),
on the helpers of common/moto_common.py.

    moto_admin.py URL CA_PEM setup QUEUE...
        # three IAM users, each with an access key: "relay", whose policy
        # allows only sqs:SendMessage on the queues and sts:AssumeRole of
        # the role "relay-sender" (which may sqs:SendMessage on them);
        # "reader", allowed everything; "denied", with no policy at all.
        # Then the role, then the queues
        # (a name ending in .fifo is a FIFO queue, without content-based
        # deduplication). Prints {"relay": [id, secret], "reader": [...],
        # "denied": [...], "queues": {name: url}}.
    moto_admin.py URL CA_PEM setup-web QUEUE...
        # the installation's role "relay-installation" (web identity), which
        # may assume "relay-sender", then the set-up as above without its
        # closing refusal (see setup_web)
    moto_admin.py URL CA_PEM drain KEY_ID SECRET QUEUE_URL
        # receives every message of the queue and deletes it: prints
        # [{"body_b64", "attributes": {name: value}, "system": {...}}], in
        # the order received

The set-up's actions (SETUP_ACTIONS in sqs/moto.rs): 3 per user with a
policy, 2 for "denied", 2 for the role, 1 per queue. A request with a wrong
signature or without sqs:SendMessage is then refused as AWS refuses it.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from moto_common import allow, client, drain, expect_refused, main, user  # noqa: E402

ROLE = "arn:aws:iam::123456789012:role/relay-sender"


def setup_web(url, ca, *names):
    """The set-up, then the installation's role for web identity: the role
    "relay-installation" (trusting anyone, as the other role), which may
    sts:AssumeRole "relay-sender": 2 actions more. The server's count of
    free actions also covers the one AssumeRoleWithWebIdentity Relay makes
    (unsigned: moto cannot check it while it checks signatures), so the
    refusal that proves the count is the test's, after that exchange."""
    iam = client("iam", url, ca)
    iam.create_role(
        RoleName="relay-installation",
        AssumeRolePolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}],
            }
        ),
    )
    iam.put_role_policy(
        RoleName="relay-installation",
        PolicyName="assume",
        PolicyDocument=json.dumps(allow(("sts:AssumeRole", ROLE))),
    )
    setup(url, ca, *names, refused=False)


def setup(url, ca, *names, refused=True):
    iam = client("iam", url, ca)
    arns = [f"arn:aws:sqs:us-east-1:123456789012:{n}" for n in names]
    out = {
        "relay": user(iam, "relay", allow(("sqs:SendMessage", arns), ("sts:AssumeRole", ROLE))),
        "reader": user(iam, "reader", allow(("*", "*"))),
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
        PolicyDocument=json.dumps(allow(("sqs:SendMessage", arns))),
    )
    sqs = client("sqs", url, ca)
    for n in names:
        attributes = {"FifoQueue": "true"} if n.endswith(".fifo") else {}
        out["queues"][n] = sqs.create_queue(QueueName=n, Attributes=attributes)["QueueUrl"]
    if refused:
        expect_refused(
            lambda: client("sqs", url, ca, out["relay"][0], "not-the-secret").get_queue_url(QueueName=names[0])
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main({"setup": setup, "setup-web": setup_web, "drain": drain})
