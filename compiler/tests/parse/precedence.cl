// Each line mixes two adjacent precedence levels (and a few distant ones).
void p(int a, int b, int c, int d, int *q)
{
    a = a, b = b;            // comma below assignment
    a = b ? c : d;           // assignment below ?:
    a = b || c ? c : d;      // ?: below ||
    a = b || c && d;         // || below &&
    a = b && c | d;          // && below |
    a = b | c ^ d;           // | below ^
    a = b ^ c & d;           // ^ below &
    a = b & c == d;          // & below ==
    a = b == c < d;          // == below <
    a = b != c >= d;
    a = b < c << d;          // relational below shift
    a = b > c >> d;
    a = b << c + d;          // shift below additive
    a = b - c * d;           // additive below multiplicative
    a = b + c / d % a;
    a = b * (int)c;          // multiplicative below cast
    a = (int)-b;             // cast below unary
    a = -b++;                // unary below postfix
    a = *q++;
    a = !b == c;
    a = ~b & c;
    a = -b * -c;
    a = sizeof a + b;
    a = &b != 0;
    a = b + c < d == a && b || c ? d : a, b;
    a = ((b + c) * d);
}
