from enum import StrEnum

class CircuitType2State(StrEnum):
    HALF_OPEN = "half_open"

    def __str__(self) -> str:
        return str(self.value)
