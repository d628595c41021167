from enum import StrEnum

class CircuitType0State(StrEnum):
    CLOSED = "closed"

    def __str__(self) -> str:
        return str(self.value)
