// Adjacent string literals are concatenated by the parser (each piece kept).
constant char greeting[] = "Hello, " "world" "!";

kernel void k(int x)
{
    printf("x = %d\n", x);
    printf("a" "b"
           "c: %s\n", "multi"
                      "line");
    printf("");
    printf("escapes: \"quoted\" \\ \t\n");
}
