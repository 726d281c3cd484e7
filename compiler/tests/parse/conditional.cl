// The conditional operator: nesting, assignments inside, comma in the middle operand.
int c(int a, int b, int x, int y)
{
    int r = a ? b : x;
    r = a ? b ? x : y : a;
    r = a ? (b, x) : y;
    r = a ? b, x : y;
    r = (a ? x : y) = 3;
    r = a ? x += 1 : y;
    r = a < b ? a > x ? 1 : 2 : b == y ? 3 : 4;
    return a ? 1 : b ? 2 : 0;
}
