#!/usr/bin/env python3
"""The SNS tests' own client of their private moto server, with boto3 (an
independent implementation of SNS's and SQS's protocols and of AWS Signature
Version 4), on the helpers of common/moto_common.py.

    moto_admin.py URL CA_PEM setup TOPIC...
        # three IAM users, each with an access key: "relay", whose policy
        # allows only sns:Publish; "reader", allowed everything; "denied",
        # with no policy at all. Then per topic (a name ending in .fifo is a
        # FIFO topic, without content-based deduplication) an SQS queue of
        # the same name (FIFO for a FIFO topic) subscribed to it with raw
        # message delivery, so a published message arrives in the queue as
        # it was published: the message as the body, its attributes as the
        # message's. Prints {"relay": [id, secret], "reader": [...],
        # "denied": [...], "topics": {name: arn}, "queues": {name: url}}.
    moto_admin.py URL CA_PEM drain KEY_ID SECRET QUEUE_URL
        # receives every message of the queue and deletes it (as the SQS
        # tests' drain)

The set-up's actions (SETUP_ACTIONS in sns/moto.rs): 3 per user with a
policy, 2 for "denied", then 3 per topic (topic, queue, subscription). moto
authorizes SNS's actions against the resource "*", not the topic's ARN (its
SNS has no resource of its own for IAM), so "relay" may publish to any topic;
"denied" is the policy refusal.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from moto_common import allow, client, drain, expect_refused, main, user  # noqa: E402


def setup(url, ca, *names):
    iam = client("iam", url, ca)
    out = {
        "relay": user(iam, "relay", allow(("sns:Publish", "*"))),
        "reader": user(iam, "reader", allow(("*", "*"))),
        "denied": user(iam, "denied", None),
        "topics": {},
        "queues": {},
    }
    sns = client("sns", url, ca)
    sqs = client("sqs", url, ca)
    for n in names:
        fifo = n.endswith(".fifo")
        topic = sns.create_topic(Name=n, Attributes={"FifoTopic": "true"} if fifo else {})["TopicArn"]
        queue = sqs.create_queue(QueueName=n, Attributes={"FifoQueue": "true"} if fifo else {})["QueueUrl"]
        sns.subscribe(
            TopicArn=topic,
            Protocol="sqs",
            Endpoint=f"arn:aws:sqs:us-east-1:123456789012:{n}",
            Attributes={"RawMessageDelivery": "true"},
        )
        out["topics"][n] = topic
        out["queues"][n] = queue
    expect_refused(lambda: client("sns", url, ca, out["relay"][0], "not-the-secret").list_topics())
    print(json.dumps(out))


if __name__ == "__main__":
    main({"setup": setup, "drain": drain})
