# SPDX-License-Identifier: MIT
"""Scrapes a textfile directory through a real node_exporter (tests/cli-metrics.t).

    textfile_scrape.py EXPORTER DIR

Starts EXPORTER (prometheus-node-exporter) on a free port of 127.0.0.1 with
every collector off but the textfile one reading DIR, prints what its
/metrics serves, and stops it (this exporter only, by its pid) whatever
happens.  Exit status 0 once scraped, 1 otherwise, with the reason and the
exporter's last log lines on stderr.
"""
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    # The kernel picks a port nobody holds; the exporter takes it right after.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(exporter, directory):
    port = free_port()
    proc = subprocess.Popen(
        [exporter, "--web.listen-address=127.0.0.1:%d" % port,
         "--collector.disable-defaults", "--collector.textfile",
         "--collector.textfile.directory=" + directory],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = "http://127.0.0.1:%d/metrics" % port
    try:
        deadline = time.monotonic() + 20      # a loaded 2-core machine is slow
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return None, "the exporter exited with %d (port %d taken?)" % (proc.returncode, port)
            try:
                with urllib.request.urlopen(url, timeout=2) as answer:
                    return answer.read().decode(), None
            except OSError as error:
                reason = error
                time.sleep(0.05)
        return None, "no answer from %s: %s" % (url, reason)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log = proc.stderr.read().decode(errors="replace").splitlines()
        proc.stderr.close()
        scrape.log = log[-5:]


def main():
    exporter, directory = sys.argv[1], sys.argv[2]
    for _ in range(3):   # the port may be taken between the probe and the exporter
        text, error = scrape(exporter, directory)
        if text is not None:
            sys.stdout.write(text)
            return 0
    sys.stderr.write(error + "\n" + "\n".join(scrape.log) + "\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
