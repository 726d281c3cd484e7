// Every statement.
int f(int x)
{
    ;
    {}
    { ; }
    x = 1;
    if (x) x = 2;
    if (x) { x = 3; } else x = 4;
    if (x) if (x > 1) x = 5; else x = 6;
    while (x < 10) x++;
    do x--; while (x > 0);
    do { x += 2; } while (x < 20);
    for (;;) break;
    for (x = 0; x < 3; x++) continue;
    for (int i = 0, j = 1; i < j; i++, j--) { }
    switch (x) {
    case 0:
        break;
    default:
        x = 0;
    }
    goto done;
done:
    return x;
}

void g(void)
{
    return;
}
