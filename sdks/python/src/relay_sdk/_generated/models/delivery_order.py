from enum import StrEnum

class DeliveryOrder(StrEnum):
    NONE = "none"
    PER_KEY = "per_key"

    def __str__(self) -> str:
        return str(self.value)
