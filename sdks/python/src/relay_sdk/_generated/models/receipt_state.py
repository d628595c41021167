from enum import StrEnum

class ReceiptState(StrEnum):
    FAILED = "failed"
    PENDING = "pending"
    PROCESSED = "processed"
    PROCESSING = "processing"
    REJECTED = "rejected"

    def __str__(self) -> str:
        return str(self.value)
