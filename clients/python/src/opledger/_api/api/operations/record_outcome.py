from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.operation_answer import OperationAnswer
from ...models.outcome_body import OutcomeBody
from ...types import Response


def _get_kwargs(
    op_id: str,
    attempt: int,
    *,
    body: OutcomeBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/operations/{op_id}/attempts/{attempt}/outcome".format(
            op_id=quote(str(op_id), safe=""),
            attempt=quote(str(attempt), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | OperationAnswer | None:
    if response.status_code == 200:
        response_200 = OperationAnswer.from_dict(response.json())

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
) -> Response[ErrorEnvelope | OperationAnswer]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    op_id: str,
    attempt: int,
    *,
    client: AuthenticatedClient | Client,
    body: OutcomeBody,
) -> Response[ErrorEnvelope | OperationAnswer]:
    """Report how an attempt ended.

     Needs a token with the `write` scope.

    Args:
        op_id (str):
        attempt (int):
        body (OutcomeBody): The outcome of one attempt, read from the provider's object where it
            answered with one:
            `succeeded` when its status says done, `accepted` while it says pending,
            `failed_at_provider`
            (with the provider's reason in `error`) when it says failed. `timeout` and `server_error`
            make
            the operation unknown.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | OperationAnswer]
    """

    kwargs = _get_kwargs(
        op_id=op_id,
        attempt=attempt,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    op_id: str,
    attempt: int,
    *,
    client: AuthenticatedClient | Client,
    body: OutcomeBody,
) -> ErrorEnvelope | OperationAnswer | None:
    """Report how an attempt ended.

     Needs a token with the `write` scope.

    Args:
        op_id (str):
        attempt (int):
        body (OutcomeBody): The outcome of one attempt, read from the provider's object where it
            answered with one:
            `succeeded` when its status says done, `accepted` while it says pending,
            `failed_at_provider`
            (with the provider's reason in `error`) when it says failed. `timeout` and `server_error`
            make
            the operation unknown.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | OperationAnswer
    """

    return sync_detailed(
        op_id=op_id,
        attempt=attempt,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    op_id: str,
    attempt: int,
    *,
    client: AuthenticatedClient | Client,
    body: OutcomeBody,
) -> Response[ErrorEnvelope | OperationAnswer]:
    """Report how an attempt ended.

     Needs a token with the `write` scope.

    Args:
        op_id (str):
        attempt (int):
        body (OutcomeBody): The outcome of one attempt, read from the provider's object where it
            answered with one:
            `succeeded` when its status says done, `accepted` while it says pending,
            `failed_at_provider`
            (with the provider's reason in `error`) when it says failed. `timeout` and `server_error`
            make
            the operation unknown.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | OperationAnswer]
    """

    kwargs = _get_kwargs(
        op_id=op_id,
        attempt=attempt,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    op_id: str,
    attempt: int,
    *,
    client: AuthenticatedClient | Client,
    body: OutcomeBody,
) -> ErrorEnvelope | OperationAnswer | None:
    """Report how an attempt ended.

     Needs a token with the `write` scope.

    Args:
        op_id (str):
        attempt (int):
        body (OutcomeBody): The outcome of one attempt, read from the provider's object where it
            answered with one:
            `succeeded` when its status says done, `accepted` while it says pending,
            `failed_at_provider`
            (with the provider's reason in `error`) when it says failed. `timeout` and `server_error`
            make
            the operation unknown.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | OperationAnswer
    """

    return (
        await asyncio_detailed(
            op_id=op_id,
            attempt=attempt,
            client=client,
            body=body,
        )
    ).parsed
