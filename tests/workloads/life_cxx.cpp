/*
 * life_cxx.cpp - the C++ standard library's threads over pthreads:
 * std::thread, std::mutex, std::condition_variable, std::shared_mutex,
 * std::async, and thread_local objects whose destructors lock a mutex.
 * Every result is fixed by the synchronization (counts, sums), so the
 * output is the same on every run.
 */
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <future>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

static std::mutex m;
static long counter;
static int tls_destroyed;

struct tls_guard {
	bool used = false;
	~tls_guard()
	{
		if (!used)
			return;
		std::lock_guard<std::mutex> g(m);
		tls_destroyed++;
	}
};

static thread_local tls_guard tls;

static void add(int n)
{
	tls.used = true;
	for (int i = 0; i < n; i++) {
		std::lock_guard<std::mutex> g(m);
		counter++;
	}
}

/* A bounded producer/consumer queue on a condition variable. */
static void queue_run(int items, long *sum)
{
	std::mutex qm;
	std::condition_variable cv;
	std::vector<int> q;
	bool done = false;

	std::thread consumer([&] {
		std::unique_lock<std::mutex> l(qm);
		for (;;) {
			cv.wait(l, [&] { return !q.empty() || done; });
			while (!q.empty()) {
				*sum += q.back();
				q.pop_back();
			}
			if (done)
				return;
		}
	});
	for (int i = 1; i <= items; i++) {
		std::lock_guard<std::mutex> l(qm);
		q.push_back(i);
		cv.notify_one();
	}
	{
		std::lock_guard<std::mutex> l(qm);
		done = true;
	}
	cv.notify_all();
	consumer.join();
}

/* 500 rounds: every fifth a write, the others a read (counted under @rm). */
static void rw_rounds(std::shared_mutex &sm, std::mutex &rm, int i,
		      long *writes, long *reads)
{
	for (int k = 0; k < 500; k++) {
		if ((k + i) % 5 == 0) {
			std::unique_lock<std::shared_mutex> w(sm);
			(*writes)++;
		} else {
			std::shared_lock<std::shared_mutex> r(sm);
			std::lock_guard<std::mutex> g(rm);
			(*reads)++;
		}
	}
}

int main()
{
	std::vector<std::thread> ts;
	std::shared_mutex sm;
	long shared_value = 0, reads = 0, sum = 0;
	std::mutex rm;

	for (int i = 0; i < 8; i++)
		ts.emplace_back(add, 1000);
	for (auto &t : ts)
		t.join();
	std::printf("std::thread + std::mutex: counter %ld\n", counter);

	queue_run(1000, &sum);
	std::printf("std::condition_variable: sum %ld\n", sum);

	ts.clear();
	for (int i = 0; i < 4; i++)
		ts.emplace_back(rw_rounds, std::ref(sm), std::ref(rm), i,
				&shared_value, &reads);
	for (auto &t : ts)
		t.join();
	std::printf("std::shared_mutex: writes %ld, reads %ld\n",
		    shared_value, reads);

	std::vector<std::future<long>> fs;
	for (int i = 1; i <= 4; i++)
		fs.push_back(std::async(std::launch::async, [i] {
			add(10);
			return (long)i * i;
		}));
	long squares = 0;
	for (auto &f : fs)
		squares += f.get();
	std::printf("std::async: sum of squares %ld, counter %ld\n", squares,
		    counter);
	std::printf("thread_local destructors that locked: %d\n",
		    tls_destroyed);
	return 0;
}
