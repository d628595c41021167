from enum import StrEnum

class AzureServiceBusContentMode(StrEnum):
    BINARY = "binary"
    STRUCTURED = "structured"

    def __str__(self) -> str:
        return str(self.value)
