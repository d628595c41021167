from enum import StrEnum

class SqsKind(StrEnum):
    SQS = "sqs"

    def __str__(self) -> str:
        return str(self.value)
