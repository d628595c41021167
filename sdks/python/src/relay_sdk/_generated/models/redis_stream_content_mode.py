from enum import StrEnum

class RedisStreamContentMode(StrEnum):
    BINARY = "binary"
    STRUCTURED = "structured"

    def __str__(self) -> str:
        return str(self.value)
