from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.subject_view import SubjectView
from ...types import Response


def _get_kwargs(
    subject: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/subjects/{subject}/operations".format(
            subject=quote(str(subject), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | SubjectView | None:
    if response.status_code == 200:
        response_200 = SubjectView.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

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
) -> Response[ErrorEnvelope | SubjectView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    subject: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorEnvelope | SubjectView]:
    """Every operation of one order (subject) with the roll-up: which completed, which did not, which
    are uncertain, the order's status and its net effect.

     Needs a token with the `read` scope.

    Args:
        subject (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | SubjectView]
    """

    kwargs = _get_kwargs(
        subject=subject,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    subject: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorEnvelope | SubjectView | None:
    """Every operation of one order (subject) with the roll-up: which completed, which did not, which
    are uncertain, the order's status and its net effect.

     Needs a token with the `read` scope.

    Args:
        subject (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | SubjectView
    """

    return sync_detailed(
        subject=subject,
        client=client,
    ).parsed


async def asyncio_detailed(
    subject: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorEnvelope | SubjectView]:
    """Every operation of one order (subject) with the roll-up: which completed, which did not, which
    are uncertain, the order's status and its net effect.

     Needs a token with the `read` scope.

    Args:
        subject (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | SubjectView]
    """

    kwargs = _get_kwargs(
        subject=subject,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    subject: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorEnvelope | SubjectView | None:
    """Every operation of one order (subject) with the roll-up: which completed, which did not, which
    are uncertain, the order's status and its net effect.

     Needs a token with the `read` scope.

    Args:
        subject (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | SubjectView
    """

    return (
        await asyncio_detailed(
            subject=subject,
            client=client,
        )
    ).parsed
