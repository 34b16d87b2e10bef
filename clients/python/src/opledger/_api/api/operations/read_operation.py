from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.operation_view import OperationView
from ...models.state import State
from ...types import UNSET, Response, Unset


def _get_kwargs(
    op_id: str,
    *,
    wait: int | Unset = UNSET,
    state: State | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["wait"] = wait

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state

    params["state"] = json_state

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/operations/{op_id}".format(
            op_id=quote(str(op_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | OperationView | None:
    if response.status_code == 200:
        response_200 = OperationView.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

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
) -> Response[ErrorEnvelope | OperationView]:
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
    wait: int | Unset = UNSET,
    state: State | Unset = UNSET,
) -> Response[ErrorEnvelope | OperationView]:
    """An operation with its attempts, external ids and audit trail. With `wait`, the answer comes as
    soon as the operation's state changes (from `state`, the one the caller last saw, when given),
    or after `wait` seconds with the state unchanged: an agent whose refund waits for a manager
    hears the decision within about a second, in one call.

     Needs a token with the `read` scope.

    Args:
        op_id (str):
        wait (int | Unset):
        state (State | Unset): Where an operation stands.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | OperationView]
    """

    kwargs = _get_kwargs(
        op_id=op_id,
        wait=wait,
        state=state,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    op_id: str,
    *,
    client: AuthenticatedClient | Client,
    wait: int | Unset = UNSET,
    state: State | Unset = UNSET,
) -> ErrorEnvelope | OperationView | None:
    """An operation with its attempts, external ids and audit trail. With `wait`, the answer comes as
    soon as the operation's state changes (from `state`, the one the caller last saw, when given),
    or after `wait` seconds with the state unchanged: an agent whose refund waits for a manager
    hears the decision within about a second, in one call.

     Needs a token with the `read` scope.

    Args:
        op_id (str):
        wait (int | Unset):
        state (State | Unset): Where an operation stands.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | OperationView
    """

    return sync_detailed(
        op_id=op_id,
        client=client,
        wait=wait,
        state=state,
    ).parsed


async def asyncio_detailed(
    op_id: str,
    *,
    client: AuthenticatedClient | Client,
    wait: int | Unset = UNSET,
    state: State | Unset = UNSET,
) -> Response[ErrorEnvelope | OperationView]:
    """An operation with its attempts, external ids and audit trail. With `wait`, the answer comes as
    soon as the operation's state changes (from `state`, the one the caller last saw, when given),
    or after `wait` seconds with the state unchanged: an agent whose refund waits for a manager
    hears the decision within about a second, in one call.

     Needs a token with the `read` scope.

    Args:
        op_id (str):
        wait (int | Unset):
        state (State | Unset): Where an operation stands.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | OperationView]
    """

    kwargs = _get_kwargs(
        op_id=op_id,
        wait=wait,
        state=state,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    op_id: str,
    *,
    client: AuthenticatedClient | Client,
    wait: int | Unset = UNSET,
    state: State | Unset = UNSET,
) -> ErrorEnvelope | OperationView | None:
    """An operation with its attempts, external ids and audit trail. With `wait`, the answer comes as
    soon as the operation's state changes (from `state`, the one the caller last saw, when given),
    or after `wait` seconds with the state unchanged: an agent whose refund waits for a manager
    hears the decision within about a second, in one call.

     Needs a token with the `read` scope.

    Args:
        op_id (str):
        wait (int | Unset):
        state (State | Unset): Where an operation stands.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | OperationView
    """

    return (
        await asyncio_detailed(
            op_id=op_id,
            client=client,
            wait=wait,
            state=state,
        )
    ).parsed
