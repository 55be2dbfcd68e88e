#!/usr/bin/env python3
"""A stand-in for a llama-server that has the persistent disk prompt cache (never used against real servers).

Today's default build has no ``--cache-disk``; this fake behaves as the seed test of that feature describes,
so that ``features/cache.disk.feature`` can be rehearsed end to end (tests/test_cache_disk_rehearsal.py):
one slot, a RAM prompt cache, ``*.kvc`` files with a 48-byte header written to a temp name and renamed,
write-through or a spill on SIGTERM, a byte budget evicting the oldest file, damaged files deleted,
files of another configuration (model, ``--cache-type-k``) left alone, ``__TEST_TAG_...__`` lines with
``--verbose``. A "token" is a word of the prompt; each takes 23040 bytes of KV state, as with SmolLM2-135M.

``FAKE_CACHE_DISK_BUG`` makes it misbehave on purpose (to see scenarios fail): ``no-write-through``,
``non-atomic``, ``keep-corrupt``, ``no-hit``, ``no-budget``; for an unusable directory ``unwritable-continues``
(runs without the disk cache and logs why: correct too), ``unwritable-silent``, ``unwritable-crash``.
"""
import hashlib
import http.server
import json
import os
import signal
import struct
import sys
import time
import zlib

HELP = """-h,    --help                           print usage and exit
--version                               show version and build info
--host HOST                             ip address to listen
--port PORT                             port to listen
-m,    --model FNAME                    model path
-a,    --alias STRING                   model alias
-c,    --ctx-size N                     size of the prompt context
-np,   --parallel N                     number of slots
-b,    --batch-size N                   logical batch size
-t,    --threads N                      threads
-s,    --seed SEED                      seed
-n,    --n-predict N                    tokens to predict
-v,    --verbose                        verbose log
-cram, --cache-ram N                    RAM prompt cache in MiB
-ctk,  --cache-type-k TYPE              KV cache type for K
-mm,   --mmproj FILE                    multimodal projector
--swa-full                              full-size SWA cache
--slot-save-path PATH                   path to save slot kv cache
--cache-disk DIR                        persistent disk prompt cache directory
--cache-disk-limit N                    disk prompt cache budget in MiB
--cache-disk-write-through              write prompts to the disk cache as they enter the RAM cache
"""
VALUED = {"--host", "--port", "-m", "--model", "-a", "--alias", "-c", "--ctx-size", "-np", "--parallel",
          "-b", "--batch-size", "-t", "--threads", "-s", "--seed", "-n", "--n-predict", "-cram", "--cache-ram",
          "-ctk", "--cache-type-k", "-mm", "--mmproj", "--slot-save-path", "--cache-disk", "--cache-disk-limit"}
HEADER = 48
BYTES_PER_TOKEN = 23040
MARKER = "<__media_fake__>"
BUG = os.environ.get("FAKE_CACHE_DISK_BUG", "")


def parse(argv):
    options, index = {}, 0
    while index < len(argv):
        flag = argv[index]
        if flag in VALUED:
            options[flag] = argv[index + 1]
            index += 2
        else:
            options[flag] = True
            index += 1
    return options


def log(*parts):
    print(*parts, flush=True)


class DiskCache:
    def __init__(self, directory, fingerprint, limit_mib, verbose):
        self.directory, self.fingerprint, self.verbose = directory, fingerprint, verbose
        self.limit = limit_mib * 1024 * 1024 if limit_mib else 0

    def path_for(self, tokens):
        digest = hashlib.sha256(json.dumps(tokens).encode()).hexdigest()[:16]
        return os.path.join(self.directory, f"{self.fingerprint.hex()}-{digest}.kvc")

    def store(self, tokens):
        final = self.path_for(tokens)
        if os.path.exists(final):
            return
        body = struct.pack("<I", len(tokens)) + struct.pack(f"<{len(tokens)}i", *tokens)
        kv = bytes(BYTES_PER_TOKEN * len(tokens))
        checksum = zlib.crc32(body + kv)
        header = b"KVC1" + self.fingerprint + struct.pack("<QQI", len(body), len(kv), checksum)
        header += bytes(HEADER - len(header))
        target = final if BUG == "non-atomic" else final + ".tmp"
        with open(target, "wb") as stream:
            stream.write(header + body)
            for start in range(0, len(kv), 1 << 20):  # slowly enough to be caught in the act
                stream.write(kv[start:start + (1 << 20)])
                stream.flush()
                time.sleep(0.005)
        if target != final:
            os.replace(target, final)
        if self.verbose:
            log("srv  store: __TEST_TAG_CACHE_DISK_STORE__", os.path.basename(final))
        self.evict()

    def own_files(self):
        files = [os.path.join(self.directory, name) for name in os.listdir(self.directory) if name.endswith(".kvc")]
        return sorted((f for f in files if os.path.basename(f).startswith(self.fingerprint.hex())),
                      key=os.path.getmtime)

    def evict(self):
        if not self.limit or BUG == "no-budget":
            return
        files = self.own_files()
        while len(files) > 1 and sum(map(os.path.getsize, files)) > self.limit:
            log("srv  evict:", os.path.basename(files[0]))
            os.remove(files.pop(0))

    def load(self, tokens):
        path = self.path_for(tokens)
        if not os.path.exists(path) or BUG == "no-hit":
            return False
        data = open(path, "rb").read()
        valid = len(data) >= HEADER and data[4:20] == self.fingerprint
        if valid:
            body_size, kv_size, checksum = struct.unpack("<QQI", data[20:40])
            body, kv = data[HEADER:HEADER + body_size], data[HEADER + body_size:]
            valid = len(body) == body_size and len(kv) == kv_size and zlib.crc32(body + kv) == checksum
        if not valid:
            log(f"srv  load: corrupt cache file {path}" + (", deleting it" if BUG != "keep-corrupt" else ""))
            if BUG != "keep-corrupt":
                os.remove(path)
            return False
        if self.verbose:
            log("srv  load: __TEST_TAG_CACHE_DISK_HIT__", os.path.basename(path))
        return True


def main(argv):
    if "--help" in argv:
        print(HELP)
        return 0
    if "--version" in argv:
        print("version: 99999 (fake-cache-disk)", file=sys.stderr)
        return 0
    options = parse(argv)
    verbose = "--verbose" in options or "-v" in options
    log("fake llama-server with a disk prompt cache starting:", " ".join(argv))
    disk = None
    if "--cache-disk" in options:
        directory = options["--cache-disk"]
        try:
            os.makedirs(directory, exist_ok=True)
            probe = os.path.join(directory, ".probe")
            open(probe, "w").close()
            os.remove(probe)
        except OSError as error:
            if BUG == "unwritable-crash":
                os.abort()
            if BUG.startswith("unwritable-"):  # carry on without the disk cache, saying so or not
                if BUG == "unwritable-continues":
                    log(f"warn: disk prompt cache disabled, {directory} is not usable: {error}")
                directory = None
            else:
                log(f"error: the disk prompt cache directory {directory} is not usable: {error}")
                return 1
    if "--cache-disk" in options and directory is not None:
        identity = f"{options.get('--model', options.get('-m'))}|{options.get('--cache-type-k', 'f16')}"
        fingerprint = hashlib.sha256(identity.encode()).digest()[:16]
        disk = DiskCache(directory, fingerprint, int(options.get("--cache-disk-limit", 0)), verbose)
    write_through = "--cache-disk-write-through" in options and BUG != "no-write-through"
    ram_enabled = options.get("--cache-ram", "8192") != "0"
    slot, ram, on_disk = [], [], set()

    def tokenize(prompt):
        if isinstance(prompt, list):
            return [int(t) for t in prompt]
        if isinstance(prompt, dict):
            text = prompt["prompt_string"].replace(MARKER, " ".join(["IMG"] * 16))
            return [zlib.crc32(w.encode()) & 0x7FFFFFFF for w in text.split()]
        return [zlib.crc32(w.encode()) & 0x7FFFFFFF for w in prompt.split()]

    def evaluate(tokens):
        nonlocal slot
        if slot == tokens:
            return 1, len(tokens) - 1
        if slot and ram_enabled:
            if slot not in ram:
                ram.append(slot)
            if disk and write_through:
                disk.store(slot)
                on_disk.add(json.dumps(slot))
        slot = tokens
        if tokens in ram:
            ram.remove(tokens)
            return 1, len(tokens) - 1
        if disk and disk.load(tokens):
            return 1, len(tokens) - 1
        return len(tokens), 0

    def spill(*_):
        if disk:
            for tokens in ram:
                if json.dumps(tokens) not in on_disk:
                    disk.store(tokens)
        log("srv  shutdown: done")
        os._exit(0)

    signal.signal(signal.SIGTERM, spill)

    class Handler(http.server.BaseHTTPRequestHandler):
        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.startswith("/props"):
                self.reply(200, {"total_slots": 1, "media_marker": MARKER})
            else:
                self.reply(200, {"status": "ok"})

        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            prompt_n, cache_n = evaluate(tokenize(request["prompt"]))
            self.reply(200, {"content": "", "timings": {"prompt_n": prompt_n, "cache_n": cache_n}})

        def log_message(self, *args):
            if verbose:
                log("request", *args)

    server = http.server.HTTPServer((options["--host"], int(options["--port"])), Handler)
    log(f"listening on {options['--host']}:{options['--port']}")
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
