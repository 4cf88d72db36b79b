# Random input lines for scripts/peers/float_mpfr_cmp.sh: decimal (small, large and
# range-end exponents), hex floats of many precisions with all-ones, power-
# of-two and tie-like mantissas, exponents near EMIN/EMAX and anywhere in
# the range, and special values. usage: SEED N OUT MAXBITS
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]); out = sys.argv[3]; maxbits = int(sys.argv[4])
random.seed(seed)
EMIN, EMAX = 1 - 2**30, 2**30 - 1
def hexf(bits, e):
    m = random.getrandbits(bits) | (1 << (bits - 1))
    k = random.random()
    if k < 0.2: m = (1 << bits) - 1            # all ones
    elif k < 0.3: m = 1 << (bits - 1)          # power of two
    elif k < 0.4: m = (m >> 2 << 2) | 2        # tie-ish tail
    # value = m * 2^(e - bits) -> 0x{m}p{e-bits}
    s = '-' if random.random() < 0.5 else ''
    return '%s0x%xp%+d' % (s, m, e - bits)
def line():
    r = random.random()
    if r < 0.06: return random.choice(['nan','inf','-inf','0','-0','+0','1','-1','0.5'])
    bits = random.choice([1,2,3,10,52,53,54,63,64,65,100,128,129,200,maxbits])
    if r < 0.45:
        e = random.randint(-70, 70)
    elif r < 0.6:
        e = random.choice([random.randint(EMAX-3, EMAX), random.randint(EMIN, EMIN+3)])
    elif r < 0.7:
        e = random.randint(EMIN, EMAX)
    else:
        d = ''.join(random.choice('0123456789') for _ in range(random.randint(1, 40)))
        k = random.choice([random.randint(-30,30), random.randint(-400,400), random.randint(-323228400, 323228400), random.randint(-5000,5000)])
        s = random.choice(['','-','+'])
        i = random.randint(0, len(d))
        return '%s%s.%se%d' % (s, d[:i], d[i:], k)
    return hexf(bits, e)
with open(out, 'w') as f:
    for _ in range(n): f.write(line() + '\n')
