from enum import StrEnum

class SnsContentMode(StrEnum):
    BINARY = "binary"
    STRUCTURED = "structured"

    def __str__(self) -> str:
        return str(self.value)
