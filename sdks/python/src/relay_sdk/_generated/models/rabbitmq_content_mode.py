from enum import StrEnum

class RabbitmqContentMode(StrEnum):
    BINARY = "binary"
    STRUCTURED = "structured"

    def __str__(self) -> str:
        return str(self.value)
