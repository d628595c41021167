from enum import StrEnum

class AzureServiceBusKind(StrEnum):
    AZURE_SERVICE_BUS = "azure_service_bus"

    def __str__(self) -> str:
        return str(self.value)
