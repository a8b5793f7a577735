#pragma once
int serve(int conn);
