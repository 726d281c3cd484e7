// Statement errors: missing parentheses, keywords and statements.
void f(int x)
{
    if x > 0) x = 1;
    while (x { x--; }
    do x++; until (x > 3);
    switch x { default: break; }
    goto 5;
    for (int i = 0; i < 3; i++ { }
    x = 1;
    if (x) else x = 2;
    { end: }
    x = 2;
}
}
int after;
