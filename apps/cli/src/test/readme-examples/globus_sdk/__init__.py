"""The names of the hosted service's Python SDK that the README's conftest uses, for machines
without the SDK: a TransferClient that calls where GLOBUS_SDK_SERVICE_URL_TRANSFER points, as the
SDK does (base URL + /v0.10/, a bearer token, the SDK's request documents), raising on an error
status; operation_ls iterates over the listing's DATA as the SDK's response does."""
import json
import os
import urllib.parse
import urllib.request


class AccessTokenAuthorizer:
    def __init__(self, access_token):
        self.access_token = access_token


class TransferClient:
    def __init__(self, authorizer):
        self.authorizer = authorizer
        self.base_url = os.environ.get("GLOBUS_SDK_SERVICE_URL_TRANSFER", "https://transfer.api.globus.org/")

    def _call(self, path, body=None):
        headers = {"Authorization": f"Bearer {self.authorizer.access_token}", "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base_url}v0.10/{path}", data=data, headers=headers)
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read())

    def get_endpoint(self, endpoint_id):
        return self._call(f"endpoint/{endpoint_id}")

    def operation_ls(self, endpoint_id, path=None):
        query = "" if path is None else "?" + urllib.parse.urlencode({"path": path})
        return iter(self._call(f"operation/endpoint/{endpoint_id}/ls{query}")["DATA"])

    def operation_mkdir(self, endpoint_id, path):
        return self._call(f"operation/endpoint/{endpoint_id}/mkdir", {"DATA_TYPE": "mkdir", "path": path})
