"""The two names of the hosted service's Python SDK that the README's conftest uses, for machines
without the SDK: a TransferClient that GETs an endpoint where GLOBUS_SDK_SERVICE_URL_TRANSFER
points, as the SDK does (base URL + /v0.10/, a bearer token), raising on an error status."""
import json
import os
import urllib.request


class AccessTokenAuthorizer:
    def __init__(self, access_token):
        self.access_token = access_token


class TransferClient:
    def __init__(self, authorizer):
        self.authorizer = authorizer
        self.base_url = os.environ.get("GLOBUS_SDK_SERVICE_URL_TRANSFER", "https://transfer.api.globus.org/")

    def get_endpoint(self, endpoint_id):
        request = urllib.request.Request(
            f"{self.base_url}v0.10/endpoint/{endpoint_id}",
            headers={"Authorization": f"Bearer {self.authorizer.access_token}", "Accept": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read())
