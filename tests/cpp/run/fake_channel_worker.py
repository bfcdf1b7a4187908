"""Speaks just enough of the worker protocol to test the supervisor's channel.

Reads commands on fd 3; writes events (and deliberate garbage) on fd 4.
"""

import json
import os
import sys

events = os.fdopen(4, "w", buffering=1)
commands = os.fdopen(3, "r")
mode = sys.argv[1] if len(sys.argv) > 1 else "echo"

if mode == "garbage":
    events.write(json.dumps({"type": "hello", "pid": os.getpid(), "cases": [{"name": "a"}]}) + "\n")
    events.write("not json at all\n")
    events.write('{"type":"record","task":1,"path":"eager"}\n')
    big = json.dumps({"type": "path", "task": 1, "path": "x" * (3 << 20)})
    # A long valid line written in small pieces must arrive whole.
    for i in range(0, len(big), 4096):
        events.write(big[i : i + 4096])
        events.flush()
    events.write("\n")
    events.write('{"type":"done","task":1,"exit":0}\n')
    events.write('{"type":"started","task":1,"pid":')  # cut off by exit
    events.flush()
    sys.exit(0)

if mode == "echo":
    for line in commands:
        message = json.loads(line)
        if message["type"] == "quit":
            break
        events.write(json.dumps({"type": "started", "task": message["task"], "pid": os.getpid()}) + "\n")
    sys.exit(0)

if mode == "memory":
    # Hold about 200 MiB in this process and a sleeping grandchild in the group.
    block = bytearray(200 << 20)
    for i in range(0, len(block), 4096):
        block[i] = 1
    child = os.fork()
    if child == 0:
        os.execvp("sleep", ["sleep", "60"])
    events.write(json.dumps({"type": "started", "task": 1, "pid": child}) + "\n")
    commands.read()
