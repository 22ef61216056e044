! checked.f90 - the wrappers --fortran writes, called as a Fortran program
! would (tests/fortran_test.sh emits the C and the modules, builds and runs
! this): default integer sizes, allocatable arrays, no int(n, c_size_t).
!
!   ring   R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j], --generic, column-major
!   rings  the same with its outer loop split over OpenMP's threads
!          (ab'e'-dgemm@2; tests/fortran_test.sh runs it on 3)
!   fixed  C[a,b,c] = A[a,i] * B[i,b,c] at a=3,b=4,c=5,i=2, --layout row:
!          each array is the C-order tensor seen from Fortran, A(i,a),
!          B(c,b,i), C(c,b,a)
!
! The first argument says what to do:
!   run          results checked against loops; refusals through stat and
!                errmsg ("refused: MESSAGE"), each leaving the output as it
!                was; stops with a non-zero code on a failure
!   wrong-order  ring with T allocated as T(e,a,i,m), the element count
!                right, and no stat: ring_checked must stop the program
!   negative     ring with a negative size and no stat: the same
program checked
  use, intrinsic :: iso_c_binding, only: c_double
  use ring_interface, only: ring_checked
  use rings_interface, only: rings_checked
  use fixed_interface, only: fixed_checked
  use test_checks, only: failed, check, fill
  implicit none

  integer, parameter :: na = 5, nb = 4, ni = 3, nj = 2, ne = 6, nm = 7
  character(len=16) :: mode

  call get_command_argument(1, mode)
  select case (mode)
  case ('run')
    call run_ring()
    call run_fixed()
  case ('wrong-order')
    call unchecked_ring(.true.)
  case ('negative')
    call unchecked_ring(.false.)
  case default
    write (*, '(2a)') 'checked: unknown mode ', trim(mode)
    error stop 2
  end select
  if (failed /= 0) then
    write (*, '(a, i0, a)') 'checked: ', failed, ' checks FAILED'
    error stop 1
  end if
  write (*, '(a)') 'checked: all checks ok'

contains

  logical function near(x, y)
    real(c_double), intent(in) :: x(:), y(:)
    near = all(abs(x - y) <= 1e-12_c_double * (1 + abs(y)))
  end function near

  ! R + T * W by loops.
  function ring_ref(T, W, R) result(ref)
    real(c_double), intent(in) :: T(:, :, :, :), W(:, :, :, :), R(:, :, :, :)
    real(c_double) :: ref(na, nb, ni, nj)
    integer :: a, b, i, j, e, m
    ref = R
    do j = 1, nj
      do i = 1, ni
        do b = 1, nb
          do a = 1, na
            do m = 1, nm
              do e = 1, ne
                ref(a, b, i, j) = ref(a, b, i, j) + T(a, e, i, m) * W(m, b, e, j)
              end do
            end do
          end do
        end do
      end do
    end do
  end function ring_ref

  subroutine run_ring()
    real(c_double), allocatable :: T(:, :, :, :), W(:, :, :, :), R(:, :, :, :), ref(:, :, :, :)
    real(c_double), allocatable :: wrong(:, :, :, :), wide(:, :, :, :), before(:, :, :, :)
    character(len=200) :: errmsg
    integer :: stat
    allocate (T(na, ne, ni, nm), W(nm, nb, ne, nj), R(na, nb, ni, nj))
    call fill(T, size(T), 1)
    call fill(W, size(W), 2)
    call fill(R, size(R), 3)
    ref = ring_ref(T, W, R)
    call ring_checked(na, nb, ni, nj, ne, nm, T, W, R)
    call check('ring_checked: R += T * W', near(reshape(R, [size(R)]), reshape(ref, [size(ref)])))
    ref = ring_ref(T, W, R)
    call ring_checked(na, nb, ni, nj, ne, nm, T, W, R, stat=stat)
    call check('ring_checked with stat: stat 0, R += T * W', &
               stat == 0 .and. near(reshape(R, [size(R)]), reshape(ref, [size(ref)])))
    ref = ring_ref(T, W, R)
    call rings_checked(na, nb, ni, nj, ne, nm, T, W, R, stat=stat)
    call check('rings_checked, its loop split over threads: stat 0, R += T * W', &
               stat == 0 .and. near(reshape(R, [size(R)]), reshape(ref, [size(ref)])))

    ! a section: not contiguous, copied in by the compiler
    allocate (wide(na, 2 * ne, ni, nm))
    wide = 0
    wide(:, 1::2, :, :) = T
    ref = ring_ref(T, W, R)
    call ring_checked(na, nb, ni, nj, ne, nm, wide(:, 1::2, :, :), W, R)
    call check('ring_checked on a non-contiguous section', &
               near(reshape(R, [size(R)]), reshape(ref, [size(ref)])))

    ! the wrong index order, the element count right: refused, R as it was
    allocate (wrong(ne, na, ni, nm))
    call fill(wrong, size(wrong), 4)
    allocate (before, source=R)
    errmsg = ''
    call ring_checked(na, nb, ni, nj, ne, nm, wrong, W, R, stat=stat, errmsg=errmsg)
    write (*, '(2a)') 'refused: ', trim(errmsg)
    call check('T(e,a,i,m): stat 1, R unchanged', stat == 1 .and. maxval(abs(R - before)) <= 0)
    call check('T(e,a,i,m): the message', &
               errmsg == 'ring: T has extent 6 in dimension 1 (index a), expected 5')
    call ring_checked(na, nb, ni, nj, ne, nm, T, W, R(:, :, :, 1:1), stat=stat, errmsg=errmsg)
    write (*, '(2a)') 'refused: ', trim(errmsg)
    call check('R too short in j: stat 1', stat == 1 .and. &
               errmsg == 'ring: R has extent 1 in dimension 4 (index j), expected 2')
    call ring_checked(na, -nb, ni, nj, ne, nm, T, W, R, stat=stat, errmsg=errmsg)
    write (*, '(2a)') 'refused: ', trim(errmsg)
    call check('a negative size: stat 1', stat == 1 .and. &
               errmsg == 'ring: n_b, the size of index b, is -4: sizes cannot be negative')
  end subroutine run_ring

  subroutine run_fixed()
    real(c_double), allocatable :: A(:, :), B(:, :, :), C(:, :, :), ref(:, :, :)
    character(len=200) :: errmsg
    integer :: stat, ia, ib, ic
    allocate (A(2, 3), B(5, 4, 2), C(5, 4, 3), ref(5, 4, 3))
    call fill(A, size(A), 5)
    call fill(B, size(B), 6)
    C = huge(1.0_c_double) ! "=": overwritten
    do ia = 1, 3
      do ib = 1, 4
        do ic = 1, 5
          ref(ic, ib, ia) = sum(A(:, ia) * B(ic, ib, :))
        end do
      end do
    end do
    call fixed_checked(A, B, C, stat)
    call check('fixed_checked (row-major): stat 0, C = A * B', stat == 0 .and. &
               near(reshape(C, [size(C)]), reshape(ref, [size(ref)])))
    deallocate (A)
    allocate (A(3, 2)) ! the user's order a,i: not what C order is in Fortran
    A = 0
    call fixed_checked(A, B, C, stat, errmsg)
    write (*, '(2a)') 'refused: ', trim(errmsg)
    call check('fixed_checked, A(a,i): refused', stat == 1 .and. &
               errmsg == 'fixed: A has extent 3 in dimension 1 (index i), expected 2')
  end subroutine run_fixed

  ! No stat: a refusal stops the program, so nothing after the call runs.
  subroutine unchecked_ring(wrong_order)
    logical, intent(in) :: wrong_order
    real(c_double), allocatable :: T(:, :, :, :), W(:, :, :, :), R(:, :, :, :)
    integer :: n_b
    if (wrong_order) then
      allocate (T(ne, na, ni, nm))
      n_b = nb
    else
      allocate (T(na, ne, ni, nm))
      n_b = -1
    end if
    allocate (W(nm, nb, ne, nj), R(na, nb, ni, nj))
    T = 1
    W = 1
    R = 0
    call ring_checked(na, n_b, ni, nj, ne, nm, T, W, R)
    write (*, '(a)') 'checked: ring_checked returned: not refused'
    failed = failed + 1
  end subroutine unchecked_ring

end program checked
