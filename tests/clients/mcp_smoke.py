"""A second, independent MCP client: the official Python SDK (`mcp` on PyPI) connects to
`opledger serve --demo` at the URL and with the token it printed, lists the tools and calls two.

Usage: mcp_smoke.py <mcp url> <api token>
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

EXPECTED = {"refund_item", "create_aftersale", "schedule_pickup", "get_operation", "order_operations", "cancel_operation"}


def text_of(result) -> str:
    return " ".join(block.text for block in result.content if getattr(block, "text", None))


async def main(url: str, token: str) -> None:
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                names = {tool.name for tool in listed.tools}
                missing = EXPECTED - names
                assert not missing, f"tools missing: {missing}"
                print("tools:", ", ".join(sorted(names)))

                order = await session.call_tool("order_operations", {"order_id": "A1042"})
                assert not order.is_error, text_of(order)
                operations = json.loads(text_of(order))["operations"]
                print(f"order A1042: {len(operations)} operations")

                refund = await session.call_tool("refund_item", {"order_id": "A1042", "line_item_id": "li_1"})
                assert not refund.is_error, text_of(refund)
                print("refund_item:", text_of(refund))
                assert "Already done earlier" in text_of(refund), "the demo refunded li_1 of A1042 before"


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
