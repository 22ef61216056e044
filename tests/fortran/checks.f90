! checks.f90 - what tests/fortran/library.f90 and checked.f90 share: a
! count of failed checks, a check that prints ok or FAIL, and data that is
! the same in every run.
module test_checks
  use, intrinsic :: iso_c_binding, only: c_double
  implicit none
  private
  public :: failed, check, fill

  integer :: failed = 0

contains

  ! x(1:n) = numbers in [-1, 1) from seed, the same in every run (not
  ! random_number: gfortran keeps its state where LeakSanitizer, in make
  ! test-asan, does not look for pointers)
  subroutine fill(x, n, seed)
    integer, intent(in) :: n, seed
    real(c_double), intent(out) :: x(n)
    integer :: k
    do k = 1, n
      x(k) = modulo(k * 7919 + seed * 104729, 1009) / 504.5_c_double - 1
    end do
  end subroutine fill

  subroutine check(what, good)
    character(len=*), intent(in) :: what
    logical, intent(in) :: good
    if (good) then
      write (*, '(2a)') 'ok: ', what
    else
      write (*, '(2a)') 'FAIL: ', what
      failed = failed + 1
    end if
  end subroutine check

end module test_checks
