from enum import StrEnum

class SqsContentMode(StrEnum):
    BINARY = "binary"
    STRUCTURED = "structured"

    def __str__(self) -> str:
        return str(self.value)
