# Random arguments for scripts/peers/funcreal_mpfr_cmp.sh (the second set of
# functions): hex floats of many precisions (all-ones, power-of-two and
# random mantissas) across magnitudes, and per function its hard regions:
# tiny arguments (fast paths), near 1 / -1 / 0, overflow and underflow
# thresholds, exact cases (cubes, Pythagorean pairs, powers with integer or
# dyadic exponents, agm(x, x)), every special value (pairs of them too).
# usage: SEED N OUT FN MAXBITS [OUT2 for two-argument functions]
import random, sys
seed, n, out, fn, maxbits = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
out2 = sys.argv[6] if len(sys.argv) > 6 else None
random.seed(seed)
SPECIALS = ['nan', 'inf', '-inf', '0', '-0', '1', '-1', '0.5', '-0.5', '2', '-2']
def mant(bits):
    m = random.getrandbits(bits) | (1 << (bits - 1))
    k = random.random()
    if k < 0.15: m = (1 << bits) - 1
    elif k < 0.25: m = 1 << (bits - 1)
    return m
def rbits():
    return random.choice([1, 2, 3, 24, 53, 64, 65, 113, 128, 200, maxbits])
def hexf(e, neg=None, bits=None):
    bits = bits or rbits()
    m = mant(bits)
    if neg is None: neg = random.random() < 0.5
    return '%s0x%xp%+d' % ('-' if neg else '', m, e - bits)
def near(c, neg=None):
    # c +- 2^-k m (c = 1 or 0.5 ...), k up to 600
    k = random.randint(1, 600); b = random.randint(1, 60)
    d = random.getrandbits(b) | 1
    v = '0x%xp%+d' % ((c << (k + b)) + random.choice([1, -1]) * d, -(k + b))
    if neg is None: neg = random.random() < 0.5
    return ('-' if neg else '') + v
def unary():
    r = random.random()
    if r < 0.06: return random.choice(SPECIALS)
    if r < 0.2: return hexf(random.randint(-3000, -20))
    if fn == 'cbrt':
        if r < 0.35:
            m = random.getrandbits(random.randint(1, 40)) | 1
            return '%s0x%xp%+d' % (random.choice(['', '-']), m ** 3, 3 * random.randint(-300, 300))
        if r < 0.5: return hexf(random.randint(-1073741820, 1073741820))
        return hexf(random.randint(-100, 100))
    if fn == 'expm1':
        if r < 0.35: return random.choice(['744261117.5', '744261116.9', '7.45e8', '-7.45e8', '1e12', '-1e12', '-55', '-56', '-57', '-130', '-66', '-67', '-1e6', '-515', '-1030'])
        if r < 0.45: return hexf(random.randint(-1073741820, 40))
        return hexf(random.randint(-20, 12))
    if fn == 'log1p':
        if r < 0.35: return ('-' + near(1, False)) if random.random() < 0.6 else near(1, False)
        if r < 0.45: return hexf(random.randint(-60, 0), True)
        if r < 0.55: return hexf(random.randint(-1073741820, 1073741820), False)
        return hexf(random.randint(-100, 100))
    if fn in ('sinh', 'cosh'):
        if r < 0.3: return random.choice(['744261117.5', '744261116.9', '7.45e8', '-7.45e8', '1e12', '-1e12', '744261118.2', '-744261118.2', '710', '-710', '0x1p32', '-0x1p31'])
        return hexf(random.randint(-20, 12))
    if fn == 'tanh':
        if r < 0.3: return hexf(random.randint(0, 12))
        return hexf(random.randint(-20, 5))
    if fn == 'asinh':
        if r < 0.4: return hexf(random.randint(-1073741820, 1073741820))
        return hexf(random.randint(-20, 20))
    if fn == 'acosh':
        if r < 0.45: return near(1, False)
        if r < 0.55: return hexf(random.randint(-1073741820, 1073741820), False)
        if r < 0.6: return hexf(random.randint(-10, 0))
        return hexf(random.randint(1, 40), False)
    if fn in ('atanh', 'asin', 'acos'):
        if r < 0.45: return ('-' if random.random() < 0.5 else '') + ('0x%xp%+d' % ((1 << 600) - (random.getrandbits(40) | 1) * (1 << random.randint(0, 560)), -600))
        if r < 0.55: return hexf(random.randint(1, 10))
        return hexf(random.randint(-20, 0))
    raise SystemExit('fn?')
def pair():
    r = random.random()
    if r < 0.12 and fn != 'pow_z':
        return random.choice(SPECIALS), random.choice(SPECIALS + ['3', '-3', '0.25', '1.5', '-1.5'])
    if fn == 'atan2':
        if r < 0.3: return hexf(random.randint(-1073741820, 1073741820)), hexf(random.randint(-1073741820, 1073741820))
        if r < 0.4: e = random.randint(-50, 50); return hexf(e), hexf(e + random.randint(-3, 3))
        return hexf(random.randint(-3000, 3000)), hexf(random.randint(-3000, 3000))
    if fn == 'hypot':
        if r < 0.3:
            a, b = random.choice([(3, 4), (5, 12), (8, 15), (20, 21), (119, 120), (696, 697)])
            k = random.randint(-1000, 1000)
            return '%s0x%xp%+d' % (random.choice(['', '-']), a, k), '%s0x%xp%+d' % (random.choice(['', '-']), b, k)
        if r < 0.4: return hexf(1073741823 - random.randint(0, 2)), hexf(1073741823 - random.randint(0, 40))
        if r < 0.5: return hexf(-1073741820 + random.randint(0, 40)), hexf(-1073741820 + random.randint(0, 40))
        e = random.randint(-3000, 3000)
        return hexf(e), hexf(e - random.randint(-700, 700))
    if fn == 'agm':
        if r < 0.25: x = hexf(random.randint(-100, 100), False); return x, x
        if r < 0.3: return hexf(random.randint(-10, 10)), hexf(random.randint(-10, 10))
        if r < 0.45: return hexf(random.randint(-1073741820, 1073741820), False), hexf(random.randint(-1073741820, 1073741820), False)
        return hexf(random.randint(-60, 60), False), hexf(random.randint(-60, 60), False)
    if fn in ('pow', 'pow_z'):
        ints = lambda: str(random.choice([random.randint(-40, 40), random.randint(-3000, 3000), random.choice([1073741824, -1073741824, 2**40, -2**40, 2**64 + 1, 3, -3, 2, -2, 1, -1, 0])]))
        if fn == 'pow_z':
            if r < 0.3: return random.choice(SPECIALS), ints()
            if r < 0.5: return '0x1p%+d' % random.randint(-3000, 3000), ints()
            return hexf(random.randint(-20, 20)), ints()
        if r < 0.3:
            # y an integer, x random / a power of two / an odd small integer
            x = random.choice([hexf(random.randint(-20, 20)), '0x1p%+d' % random.randint(-3000, 3000), str(random.choice([3, -3, 5, 7, -7, 9, 10, -10, 11, 13, 1.5, -1.5, 0.75]))])
            return x, ints()
        if r < 0.45:
            # y = n / 2^k, x a perfect power
            k = random.randint(1, 4); nn = random.choice([1, -1, 3, -3, 5, 7, -9]) 
            base = random.choice([3, 5, 7, 9, 1, 15, 2]); e = random.randint(-20, 20)
            x = '0x%xp%+d' % (base ** (2 ** k), e * 2 ** k)
            return x, '%d.0p%+d' % (nn, 0) if False else '0x%xp%+d' % (abs(nn), -k) if nn > 0 else '-0x%xp%+d' % (-nn, -k)
        if r < 0.55:
            # overflow/underflow: x^y beyond the range
            return hexf(random.randint(-3, 3), False), hexf(random.randint(25, 34))
        if r < 0.65:
            # x near 1, large y
            kk = random.randint(20, 300)
            return near(1, False), hexf(random.randint(kk - 5, kk + 30))
        if r < 0.75: return hexf(random.randint(-100, 100)), hexf(random.randint(-100, 100))
        return hexf(random.randint(-20, 20), False), hexf(random.randint(-8, 8))
    raise SystemExit('fn?')
if out2:
    with open(out, 'w') as f, open(out2, 'w') as g:
        for _ in range(n):
            a, b = pair(); f.write(a + '\n'); g.write(b + '\n')
else:
    with open(out, 'w') as f:
        for _ in range(n): f.write(unary() + '\n')
