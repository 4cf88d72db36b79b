# Random arguments for scripts/peers/func_mpfr_cmp.sh, per function: hex floats of
# many precisions (all-ones, power-of-two and random mantissas) across
# magnitudes (tiny, moderate, large), near multiples of pi/2 (sin, cos),
# near 1 (log), near the overflow/underflow thresholds (exp), specials.
# usage: SEED N OUT FN MAXBITS
import random, sys
seed, n, out, fn, maxbits = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
random.seed(seed)
def mant(bits):
    m = random.getrandbits(bits) | (1 << (bits - 1))
    k = random.random()
    if k < 0.15: m = (1 << bits) - 1
    elif k < 0.25: m = 1 << (bits - 1)
    return m
def hexf(bits, e, neg=None):
    m = mant(bits)
    if neg is None: neg = random.random() < 0.5
    return '%s0x%xp%+d' % ('-' if neg else '', m, e - bits)
PI = '3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196'
def line():
    r = random.random()
    if r < 0.05: return random.choice(['nan','inf','-inf','0','-0','1','-1','0.5','2'])
    bits = random.choice([1,2,3,24,53,64,65,113,128,200,maxbits])
    if fn == 'exp2':
        if r < 0.15: return random.choice(['1073741822.5','1073741823','1073741824','-1073741823','-1073741824','-1073741825','-1073741824.5','3','-7','0.5','-0.5','1e12'])
        if r < 0.3: return hexf(bits, random.randint(-2000, -20))
        return hexf(bits, random.randint(-20, 12))
    if fn in ('log2', 'log10'):
        if r < 0.2: return random.choice(['1','2','4','0.5','10','100','1000','1e15','1e22','1e30','0x1p-1000','0x1p1000','8','0.1'])
        fn2 = 'log'
    else:
        fn2 = fn
    if fn2 == 'exp':
        if r < 0.15: return random.choice(['744261117.5','-744261117.5','744261116.9','-744261118.6','7.45e8','-7.45e8','1e12','-1e12'])
        if r < 0.3: return hexf(bits, random.randint(-2000, -20))
        return hexf(bits, random.randint(-20, 12))
    if fn2 == 'log':
        if r < 0.35:
            k = random.randint(1, 600); b = random.randint(1, 60)
            return '0x1p0' if False else '0x%xp%+d' % ((1 << (k + b)) + random.choice([1, -1]) * (random.getrandbits(b) | 1), -(k + b))
        if r < 0.5: return hexf(bits, random.randint(-1073741820, 1073741820), False)
        return hexf(bits, random.randint(-100, 100), False)
    if fn2 in ('sin', 'cos', 'tan'):
        if r < 0.35:
            k = random.randint(1, 10**6)
            # k pi/2 to 60 digits: near a multiple of pi/2 at any precision <= 200
            from decimal import Decimal, getcontext
            getcontext().prec = 200
            v = Decimal(PI) * k / 2
            return ('-' if random.random() < 0.5 else '') + format(v, '.%de' % random.randint(15, 60))
        if r < 0.5: return hexf(bits, random.randint(-3000, -10))
        if r < 0.6: return hexf(bits, random.randint(20, 300))
        return hexf(bits, random.randint(-10, 20))
    if fn == 'atan':
        if r < 0.3: return hexf(bits, random.randint(-3000, 3000))
        if r < 0.4: return hexf(bits, random.randint(-1073741820, 1073741820))
        return hexf(bits, random.randint(-12, 12))
with open(out, 'w') as f:
    for _ in range(n): f.write(line() + '\n')
