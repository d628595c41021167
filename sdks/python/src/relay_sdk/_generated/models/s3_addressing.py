from enum import StrEnum

class S3Addressing(StrEnum):
    PATH = "path"
    VIRTUAL_HOST = "virtual_host"

    def __str__(self) -> str:
        return str(self.value)
