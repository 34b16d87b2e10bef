"""A real SMTP server for the notification tests: aiosmtpd on a free port of 127.0.0.1, writing
each message it receives, raw as it came, into a file of the directory given as the first argument
(and its recipients into a file beside it). The port is the second argument, or a free one when
there is none. With SMTP_MAILBOX_ANSWER_AFTER=N in the environment, it keeps each message and waits
N seconds before it answers the client (a server slow to say "250" after the final "."). Prints the
port on standard output once it listens, then serves until it is killed."""

import asyncio
import os

import itertools
import pathlib
import socket
import sys
import time

from aiosmtpd.controller import Controller


class Mailbox:
    def __init__(self, folder: pathlib.Path):
        self.folder = folder
        self.numbers = itertools.count(1)

    async def handle_DATA(self, server, session, envelope):
        number = next(self.numbers)
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        recipients = ",".join(envelope.rcpt_tos).encode("utf-8")
        (self.folder / f"{number:04}.rcpt").write_bytes(recipients)
        (self.folder / f"{number:04}.eml").write_bytes(raw)
        await asyncio.sleep(float(os.environ.get("SMTP_MAILBOX_ANSWER_AFTER", "0")))
        return f"250 2.0.0 OK queued as mail{number}"


def main() -> None:
    folder = pathlib.Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 2:
        port = int(sys.argv[2])
    else:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    controller = Controller(Mailbox(folder), hostname="127.0.0.1", port=port)
    controller.start()
    print(port, flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
