from enum import StrEnum

class EndpointState(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"
    PAUSED = "paused"
    UNVERIFIED = "unverified"

    def __str__(self) -> str:
        return str(self.value)
