#include <criterion/criterion.h>
Test(emath, placeholder) { cr_assert(1); }
