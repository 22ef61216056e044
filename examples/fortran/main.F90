! main.F90 - calls two routines written by tcgen from Fortran 2008 and checks
! them against naive loops. Fortran arrays are column-major, tcgen's default
! layout, so the arrays are passed as they are. The interfaces are the
! modules tcgen wrote with --fortran beside each C file; nothing here
! restates the C signatures. Built by this directory's Makefile:
!
!   relativity  C[a,b,c] = A[i,j,a] * B[j,b,i,c]  sizes fixed at generation
!               (i=j=NIJ, a=b=c=NABC; the same -D values must reach this file)
!   gemv_like   C[a] = A[i,a,j] * B[j,i]          --generic: the sizes are
!               arguments (ranked for ../iaj_ji.tc), called through
!               gemv_like_checked: default integer sizes, the arrays'
!               shapes checked against them
!
! Stops with a non-zero code on any mismatch.
program emitted_from_fortran
  use, intrinsic :: iso_c_binding, only: c_int, c_double
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan
  use relativity_interface, only: relativity  ! bind(C): relativity(A, B, C)
  use gemv_like_interface, only: gemv_like_checked  ! gemv_like_checked(n_a, n_i, n_j, A, B, C, stat)
  implicit none

#ifndef NIJ
#define NIJ 8
#endif
#ifndef NABC
#define NABC 40
#endif

  integer :: bad, nseed
  integer, allocatable :: seed(:)

  call random_seed(size=nseed)  ! the same numbers in every run
  allocate (seed(nseed))
  seed = 20240101
  call random_seed(put=seed)

  bad = check_relativity(NIJ, NABC)
  bad = bad + check_gemv_like(40, 24, 32)
  bad = bad + check_gemv_like(7, 5, 3)
  if (bad /= 0) then
    write (*, '(a, i0, a)') 'fortran: ', bad, ' checks FAILED'
    error stop 1
  end if
  write (*, '(a)') 'fortran: all checks ok'

contains

  ! Prints the verdict: the largest error relative to the sum of the
  ! magnitudes of what was added up for each element. Returns 1 on a mismatch.
  integer function verdict(what, rc, got, ref, mag)
    character(*), intent(in) :: what
    integer, intent(in) :: rc
    real(c_double), intent(in) :: got(:), ref(:), mag(:)
    real(c_double) :: worst
    worst = maxval(abs(got - ref) / max(mag, tiny(1.0_c_double)))
    verdict = 0
    if (rc /= 0 .or. any(ieee_is_nan(got)) .or. .not. worst <= 1e-12_c_double) verdict = 1
    write (*, '(a, t42, a, i0, a, es7.1, 2x, a)') what, 'returned ', rc, ', max error ', worst, &
      trim(merge('MISMATCH', 'ok      ', verdict /= 0))
  end function verdict

  integer function check_relativity(nij, nabc) result(bad)
    integer, intent(in) :: nij, nabc
    real(c_double), allocatable :: ta(:,:,:), tb(:,:,:,:), tc(:,:,:), ref(:,:,:), mag(:,:,:)
    integer :: a, b, c, i, j
    integer(c_int) :: rc
    character(64) :: what
    allocate (ta(nij, nij, nabc), tb(nij, nabc, nij, nabc), tc(nabc, nabc, nabc))
    allocate (ref(nabc, nabc, nabc), mag(nabc, nabc, nabc))
    call random_number(ta)
    call random_number(tb)
    call random_number(tc)  ! "=": whatever C holds is overwritten
    ta = 2 * ta - 1
    tb = 2 * tb - 1
    ref = 0
    mag = 0
    do c = 1, nabc
      do b = 1, nabc
        do a = 1, nabc
          do i = 1, nij
            do j = 1, nij
              ref(a, b, c) = ref(a, b, c) + ta(i, j, a) * tb(j, b, i, c)
              mag(a, b, c) = mag(a, b, c) + abs(ta(i, j, a) * tb(j, b, i, c))
            end do
          end do
        end do
      end do
    end do
    write (what, '(a, i0, a, i0, a)') 'relativity (i=j=', nij, ' a=b=c=', nabc, ')'
    rc = relativity(ta, tb, tc)
    bad = verdict(trim(what), int(rc), reshape(tc, [size(tc)]), reshape(ref, [size(ref)]), &
                  reshape(mag, [size(mag)]))
  end function check_relativity

  integer function check_gemv_like(na, ni, nj) result(bad)
    integer, intent(in) :: na, ni, nj
    real(c_double), allocatable :: ta(:,:,:), tb(:,:), tc(:), ref(:), mag(:)
    integer :: a, i, j, stat
    character(64) :: what
    allocate (ta(ni, na, nj), tb(nj, ni), tc(na), ref(na), mag(na))
    call random_number(ta)
    call random_number(tb)
    call random_number(tc)
    ta = 2 * ta - 1
    tb = 2 * tb - 1
    ref = 0
    mag = 0
    do j = 1, nj
      do i = 1, ni
        do a = 1, na
          ref(a) = ref(a) + ta(i, a, j) * tb(j, i)
          mag(a) = mag(a) + abs(ta(i, a, j) * tb(j, i))
        end do
      end do
    end do
    write (what, '(a, i0, a, i0, a, i0, a)') 'gemv_like (a=', na, ' i=', ni, ' j=', nj, ')'
    call gemv_like_checked(na, ni, nj, ta, tb, tc, stat)  ! stat 1: a shape refused
    bad = verdict(trim(what), stat, tc, ref, mag)
  end function check_gemv_like

end program emitted_from_fortran
