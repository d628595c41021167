from enum import StrEnum

class ConsumerKind(StrEnum):
    CUSTOMER = "customer"
    TENANT = "tenant"

    def __str__(self) -> str:
        return str(self.value)
