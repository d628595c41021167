from enum import StrEnum

class Capability(StrEnum):
    MANAGE_ENDPOINTS = "manage_endpoints"
    RECOVER = "recover"
    ROTATE_KEYS = "rotate_keys"
    SEND_TESTS = "send_tests"

    def __str__(self) -> str:
        return str(self.value)
