from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.attempt_started import AttemptStarted
from ...models.begin_body import BeginBody
from ...models.error_envelope import ErrorEnvelope
from ...types import UNSET, Response, Unset


def _get_kwargs(
    op_id: str,
    *,
    body: BeginBody | None | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/operations/{op_id}/attempts".format(
            op_id=quote(str(op_id), safe=""),
        ),
    }

    if isinstance(body, BeginBody):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AttemptStarted | ErrorEnvelope | None:
    if response.status_code == 201:
        response_201 = AttemptStarted.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ErrorEnvelope.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AttemptStarted | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    op_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BeginBody | None | Unset = UNSET,
) -> Response[AttemptStarted | ErrorEnvelope]:
    """Record the operation as `submitted` before the caller sends it; answers the key to send with
    and until when the send is taken to be in flight.

     Needs a token with the `write` scope.

    Args:
        op_id (str):
        body (BeginBody | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AttemptStarted | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        op_id=op_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    op_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BeginBody | None | Unset = UNSET,
) -> AttemptStarted | ErrorEnvelope | None:
    """Record the operation as `submitted` before the caller sends it; answers the key to send with
    and until when the send is taken to be in flight.

     Needs a token with the `write` scope.

    Args:
        op_id (str):
        body (BeginBody | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AttemptStarted | ErrorEnvelope
    """

    return sync_detailed(
        op_id=op_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    op_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BeginBody | None | Unset = UNSET,
) -> Response[AttemptStarted | ErrorEnvelope]:
    """Record the operation as `submitted` before the caller sends it; answers the key to send with
    and until when the send is taken to be in flight.

     Needs a token with the `write` scope.

    Args:
        op_id (str):
        body (BeginBody | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AttemptStarted | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        op_id=op_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    op_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BeginBody | None | Unset = UNSET,
) -> AttemptStarted | ErrorEnvelope | None:
    """Record the operation as `submitted` before the caller sends it; answers the key to send with
    and until when the send is taken to be in flight.

     Needs a token with the `write` scope.

    Args:
        op_id (str):
        body (BeginBody | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AttemptStarted | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            op_id=op_id,
            client=client,
            body=body,
        )
    ).parsed
