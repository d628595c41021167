from enum import StrEnum

class PubsubKind(StrEnum):
    PUBSUB = "pubsub"

    def __str__(self) -> str:
        return str(self.value)
