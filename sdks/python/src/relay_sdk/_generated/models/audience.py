from enum import StrEnum

class Audience(StrEnum):
    ADDRESSED = "addressed"
    ALL_CONSUMERS = "all_consumers"

    def __str__(self) -> str:
        return str(self.value)
