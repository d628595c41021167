from enum import StrEnum

class AttemptOutcome(StrEnum):
    DEAD_LETTERED = "dead_lettered"
    DEFERRED = "deferred"
    DELIVERED = "delivered"
    EXHAUSTED = "exhausted"
    PERMANENT = "permanent"
    RETRY = "retry"

    def __str__(self) -> str:
        return str(self.value)
