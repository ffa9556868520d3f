#!/usr/bin/python3
# smtp_sink.py DIR — a real local SMTP server for the turn e-mail tests
# (tests/server/mail.test.mjs), built on Debian's python3-aiosmtpd.
#
# It listens on 127.0.0.1 on a port the kernel picks, prints "PORT <n>" on
# stdout once it accepts connections, and writes every message it receives
# to DIR as NNNN.json: {"from", "to": [...], "headers": {name: value},
# "body": the decoded text, "raw": the message as received}.  A file appears
# whole (written aside, then renamed).  It runs until stdin closes or it gets
# SIGTERM, so the test that started it always stops it.
import email
import email.policy
import json
import os
import signal
import socket
import sys

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, folder):
        self.folder = folder
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode('utf-8')
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        body = msg.get_body(preferencelist=('plain',))
        self.count += 1
        record = {
            'from': envelope.mail_from,
            'to': list(envelope.rcpt_tos),
            'headers': {k: str(v) for k, v in msg.items()},
            'body': body.get_content() if body else '',
            'raw': raw.decode('utf-8', 'replace'),
        }
        path = os.path.join(self.folder, '%04d.json' % self.count)
        with open(path + '.part', 'w', encoding='utf-8') as f:
            json.dump(record, f)
        os.rename(path + '.part', path)
        return '250 OK'


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    probe = socket.socket()
    probe.bind(('127.0.0.1', 0))
    port = probe.getsockname()[1]
    probe.close()
    controller = Controller(Sink(folder), hostname='127.0.0.1', port=port)
    controller.start()
    print('PORT %d' % port, flush=True)

    def stop(*_):
        controller.stop()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    # stdin closing (the test ended, however it ended) stops the server too
    sys.stdin.read()
    stop()


if __name__ == '__main__':
    main()
