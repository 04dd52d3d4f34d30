/*
 * core/clock.h — the monotonic clock the timings and deadlines read.
 */
#pragma once

/* Milliseconds on CLOCK_MONOTONIC (fractional). */
double ts_now_ms(void);
