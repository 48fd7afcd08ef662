import sys, subprocess, pyte, os, time
binary, cols = sys.argv[1], int(sys.argv[2])
ck = '/tmp/ptycheck/c.ckpt'
for f in (ck, ck + '.lock'):
    if os.path.exists(f): os.remove(f)
cmd = f"stty cols {cols} rows 24; {binary} count 19 -t 1 --checkpoint {ck}"
# ^C typed into the terminal after 4 s: the line discipline echoes it and sends SIGINT.
p = subprocess.Popen(['script', '-qfec', cmd, '/tmp/ptycheck/ts'], stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(4)
p.stdin.write(b'\x03'); p.stdin.flush()
p.wait(timeout=30)
raw = open('/tmp/ptycheck/ts', 'rb').read()
start = raw.find(b'\n') + 1  # the script header line
screen = pyte.Screen(cols, 24); stream = pyte.ByteStream(screen); stream.feed(raw[start:])
lines = [l.rstrip() for l in screen.display]
for l in lines:
    if l: print('|' + l)
