from enum import StrEnum

class CloudEventDatacontenttype(StrEnum):
    APPLICATIONJSON = "application/json"

    def __str__(self) -> str:
        return str(self.value)
