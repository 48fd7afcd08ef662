// How long a thread waits for its first time on a CPU on this VM (issue 35, NOTE.md).
//   gcc -O2 -pthread wake.c -o wake && ./wake MODE RUNS GAP_MS
// Mode 0: a thread pinned to core 1, asleep for GAP_MS, woken from core 0: µs until it runs.
// Mode 1: a thread spawned while its spawner keeps its core busy: µs until the new thread runs,
//   the spawner's core, the new thread's core. Modes 2-4: the same, the spawner then sleeping
//   until it runs (2), yielding once (3), sleeping 1 µs (4). Mode 5: the spawner yields once and
//   the new thread moves itself off the spawner's core, then allows both again (the listing's
//   `spread`): µs until it starts, until it has moved, until the spawner runs again.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <stdatomic.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static pthread_mutex_t mu=PTHREAD_MUTEX_INITIALIZER; static pthread_cond_t cv=PTHREAD_COND_INITIALIZER;
static int go=0; static double woke_at, ran_at; static atomic_int started; static double t_started; static int cpu_started;
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static void* sleeper(void*a){pin(1);for(;;){pthread_mutex_lock(&mu);while(!go)pthread_cond_wait(&cv,&mu);go=0;ran_at=now();pthread_mutex_unlock(&mu);}return 0;}
static double t_moved; static int cpu_moved;
static void* mover(void*a){t_started=now();cpu_started=sched_getcpu();
  cpu_set_t all;CPU_ZERO(&all);CPU_SET(0,&all);CPU_SET(1,&all); cpu_set_t o=all; CPU_CLR(cpu_started,&o);
  pthread_setaffinity_np(pthread_self(),sizeof o,&o); t_moved=now(); cpu_moved=sched_getcpu();
  pthread_setaffinity_np(pthread_self(),sizeof all,&all);
  atomic_store(&started,1); volatile double x=0; for(int k=0;k<2000000;k++) x+=k; return 0;}
static void* fresh(void*a){t_started=now();cpu_started=sched_getcpu();atomic_store(&started,1);return 0;}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); int n=atoi(argv[2]); double gap_ms=atof(argv[3]);
  pin(0);
  if(mode==0){pthread_t t;pthread_create(&t,0,sleeper,0);usleep(50000);
    for(int i=0;i<n;i++){usleep((useconds_t)(gap_ms*1000));ran_at=0;
      pthread_mutex_lock(&mu);go=1;woke_at=now();pthread_cond_signal(&cv);pthread_mutex_unlock(&mu);
      double t0=now(); while(1){pthread_mutex_lock(&mu);double r=ran_at;pthread_mutex_unlock(&mu);if(r>0){printf("%.1f\n",r-woke_at);break;} if(now()-t0>100000){printf("timeout\n");break;}}
    }
  } else {
    // unpin main so the kernel chooses; main spins (busy) while the new thread starts
    cpu_set_t s;CPU_ZERO(&s);CPU_SET(0,&s);CPU_SET(1,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);
    for(int i=0;i<n;i++){usleep((useconds_t)(gap_ms*1000)); atomic_store(&started,0);
      volatile double x=0; for(int k=0;k<200000;k++) x+=k; // be running
      int mycpu=sched_getcpu(); double c=now(); pthread_t t; pthread_create(&t,0,mode==5?mover:fresh,0);
      if(mode==5){ sched_yield(); while(!atomic_load(&started)){ if(now()-c>50000) break; }
        double back=now(); volatile double x=0; for(int k=0;k<200000;k++) x+=k;
        printf("start %.1f moved %.1f creator-back %.1f cpus %d>%d>%d creator-now %d\n",t_started-c,t_moved-c,back-c,mycpu,cpu_started,cpu_moved,sched_getcpu()); pthread_join(t,0); continue; }
      if(mode==2){ while(!atomic_load(&started)) usleep(0); }
      else if(mode==3){ sched_yield(); while(!atomic_load(&started)){ if(now()-c>50000) break; } }
      else if(mode==4){ struct timespec ts={0,1000}; nanosleep(&ts,0); while(!atomic_load(&started)){ if(now()-c>50000) break; } }
      else while(!atomic_load(&started)){ if(now()-c>50000) break; }
      printf("%.1f %d %d\n",t_started-c, mycpu, cpu_started); pthread_join(t,0);}
  }
}
