#!/usr/bin/env python3
# irqbsock.py - the two ends of irqbalance's socket for the irqbalance
# tests (test-irq.sh, test-irqbalance.sh):
#   irqbsock.py listen PATH LOG   stand in for irqbalance's socket at PATH:
#                                 each request, read to its end, is
#                                 appended to LOG as a line
#   irqbsock.py ask PATH TEXT     send TEXT to a real irqbalance and print
#                                 its answer, waiting up to 60 s for it
#                                 (irqbalance dies of SIGPIPE when a
#                                 client hangs up on its answer)
import socket
import sys


def read_all(c):
    data = b""
    while True:
        d = c.recv(4096)
        if not d:
            return data.decode()
        data += d


def listen(path, log):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(4)
    while True:
        c, _ = s.accept()
        text = read_all(c)
        c.close()
        with open(log, "a") as f:
            f.write(text + "\n")


def ask(path, text):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(60)
    s.connect(path)
    s.send(text.encode())
    print(read_all(s))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "listen":
        listen(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "ask":
        ask(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: irqbsock.py listen PATH LOG | ask PATH TEXT")
