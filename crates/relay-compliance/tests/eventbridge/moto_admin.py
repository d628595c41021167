#!/usr/bin/env python3
"""The EventBridge tests' own client of their private moto server, with boto3
(an independent implementation of EventBridge's and SQS's protocols and of AWS
Signature Version 4), on the helpers of common/moto_common.py.

    moto_admin.py URL CA_PEM setup SOURCE QUEUE...
        # three IAM users, each with an access key: "relay", whose policy
        # allows only events:PutEvents and sts:AssumeRole of the role
        # "relay-sender" (which may events:PutEvents); "reader", allowed
        # everything; "denied", with no policy at all. Then the role. Then
        # per queue name an event bus (the name, with ".fifo" made "-fifo":
        # a bus name has no FIFO), the SQS queue (a name ending in .fifo is a
        # FIFO queue, with content-based deduplication, which EventBridge
        # requires of a FIFO target), and a rule on the bus matching the
        # events of SOURCE with the queue as its target (a FIFO target's
        # MessageGroupId "relay"). Prints {"relay": [id, secret], "reader":
        # [...], "denied": [...], "buses": {queue: bus ARN}, "queues":
        # {queue: url}}.
    moto_admin.py URL CA_PEM drain KEY_ID SECRET QUEUE_URL
        # receives every message of the queue and deletes it (as the SQS
        # tests' drain): each is an EventBridge event, the JSON EventBridge
        # made of the entry ("detail" the entry's Detail, parsed)

The set-up's actions (SETUP_ACTIONS in eventbridge/moto.rs): 3 per user with
a policy, 2 for "denied", 2 for the role, then 4 per queue (bus, queue, rule,
target). moto authorizes EventBridge's actions against the resource "*" (its
IAM has no resource of EventBridge's), so the policies name "*"; "denied" is
the policy refusal.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from moto_common import allow, client, drain, expect_refused, main, user  # noqa: E402

ROLE = "arn:aws:iam::123456789012:role/relay-sender"


def bus_name(queue):
    return queue[: -len(".fifo")] + "-fifo" if queue.endswith(".fifo") else queue


def setup(url, ca, source, *names):
    iam = client("iam", url, ca)
    out = {
        "relay": user(iam, "relay", allow(("events:PutEvents", "*"), ("sts:AssumeRole", ROLE))),
        "reader": user(iam, "reader", allow(("*", "*"))),
        "denied": user(iam, "denied", None),
        "buses": {},
        "queues": {},
    }
    # The role trusts anyone: moto does not check a trust policy's
    # ExternalId condition; Relay's own tests hold that rule.
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
        RoleName="relay-sender", PolicyName="put", PolicyDocument=json.dumps(allow(("events:PutEvents", "*")))
    )
    events = client("events", url, ca)
    sqs = client("sqs", url, ca)
    for n in names:
        fifo = n.endswith(".fifo")
        bus = events.create_event_bus(Name=bus_name(n))["EventBusArn"]
        attributes = {"FifoQueue": "true", "ContentBasedDeduplication": "true"} if fifo else {}
        out["queues"][n] = sqs.create_queue(QueueName=n, Attributes=attributes)["QueueUrl"]
        events.put_rule(
            Name=f"to-{bus_name(n)}",
            EventBusName=bus_name(n),
            EventPattern=json.dumps({"source": [source]}),
        )
        target = {"Id": "queue", "Arn": f"arn:aws:sqs:us-east-1:123456789012:{n}"}
        if fifo:
            target["SqsParameters"] = {"MessageGroupId": "relay"}
        events.put_targets(Rule=f"to-{bus_name(n)}", EventBusName=bus_name(n), Targets=[target])
        out["buses"][n] = bus
    expect_refused(lambda: client("events", url, ca, out["relay"][0], "not-the-secret").list_event_buses())
    print(json.dumps(out))


if __name__ == "__main__":
    main({"setup": setup, "drain": drain})
