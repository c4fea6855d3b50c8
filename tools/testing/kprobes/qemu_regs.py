#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a wedged guest's vCPUs are, from the host (run.sh).

    qemu_regs.py <seconds> <monitor socket> <System.map>

After <seconds> (run.sh kills it first when the guest ends in time), asks
QEMU's monitor for every vCPU's registers and, for each, the words
at its stack pointer, and prints a line per vCPU:

    kptest: wedged: host: cpu1 IF=0 RIP exc_int3+0x12 <- ... (stack words)

The stack words that fall in kernel text are named from System.map (the
test kernels have no KASLR): a rough backtrace, innermost first, with
whatever stale return addresses the stack holds.  This is for a guest
none of whose CPUs runs its shell any more, so that /init's own report
(SysRq) never comes.
"""
import bisect
import re
import socket
import sys
import time

MARK = 'kptest: wedged: host: '


def load_map(path):
    syms = []
    try:
        for line in open(path):
            w = line.split()
            if len(w) == 3 and w[1] in 'tTwW':
                syms.append((int(w[0], 16), w[2]))
    except OSError:
        pass
    syms.sort()
    return syms


def name(syms, addr):
    i = bisect.bisect_right(syms, (addr, '\xff')) - 1
    if i < 0 or i + 1 >= len(syms) or addr - syms[i][0] > 0x10000:
        return None
    return f'{syms[i][1]}+{addr - syms[i][0]:#x}'


class Monitor:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(10)
        self.s.connect(path)
        self.read()

    def read(self):
        buf = b''
        deadline = time.time() + 10
        while not buf.endswith(b'(qemu) ') and time.time() < deadline:
            chunk = self.s.recv(65536)
            if not chunk:
                break
            buf += chunk
        # The monitor echoes with terminal escapes; keep the text.
        return re.sub(r'\x1b\[[0-9;]*[A-Za-z]', '', buf.decode(errors='replace'))

    def cmd(self, c):
        self.s.sendall(c.encode() + b'\n')
        return self.read()


def main():
    time.sleep(float(sys.argv[1]))
    sock, sysmap = sys.argv[2], sys.argv[3]
    syms = load_map(sysmap)
    try:
        mon = Monitor(sock)
        regs = mon.cmd('info registers -a')
    except OSError:
        return 0	# QEMU has gone meanwhile
    print(f'{MARK}the vCPUs at {sys.argv[1]} s, from QEMU\'s monitor:')
    cpus = re.split(r'\n(?=CPU#\d+)', regs)
    for block in cpus:
        m = re.search(r'CPU#(\d+)', block)
        rip = re.search(r'RIP=([0-9a-f]+)', block)
        rsp = re.search(r'RSP=([0-9a-f]+)', block)
        fl = re.search(r'RFL=([0-9a-f]+)', block)
        if not (m and rip and rsp and fl):
            continue
        cpu = int(m.group(1))
        ip = int(rip.group(1), 16)
        words = []
        mon.cmd(f'cpu {cpu}')
        for w in re.findall(r'0x([0-9a-f]{16})', mon.cmd(f'x/48gx {int(rsp.group(1), 16):#x}')):
            n = name(syms, int(w, 16))
            if n and len(words) < 10:
                words.append(n)
        ifl = (int(fl.group(1), 16) >> 9) & 1
        where = name(syms, ip) or f'{ip:#x}'
        print(f'{MARK}cpu{cpu} IF={ifl} RIP {where}' +
              (' <- ' + ' <- '.join(words) if words else ''), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
