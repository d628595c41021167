from enum import StrEnum

class EndpointState(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
