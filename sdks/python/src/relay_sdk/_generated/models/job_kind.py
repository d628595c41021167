from enum import StrEnum

class JobKind(StrEnum):
    BULK_RETRY = "bulk_retry"

    def __str__(self) -> str:
        return str(self.value)
