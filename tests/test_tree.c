#include <criterion/criterion.h>
Test(tree, placeholder) { cr_assert(1); }
