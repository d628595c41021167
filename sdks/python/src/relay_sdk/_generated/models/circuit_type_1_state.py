from enum import StrEnum

class CircuitType1State(StrEnum):
    OPEN = "open"

    def __str__(self) -> str:
        return str(self.value)
