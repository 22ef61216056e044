! library.f90 - module tcgen from Fortran (tests/fortran_test.sh builds and
! runs it): a plan executed on allocatable arrays and checked against
! loops, in both layouts, through the wrappers and the bind(C) interfaces;
! tiles of larger arrays planned from their views (tc_plan_create_views);
! the algorithm, origin and prediction read back; wisdom through a string
! and a file (the path is the first argument); errors and their messages.
! Prints a line per check ("ok: ..." or "FAIL: ...") and "error: MESSAGE"
! for the errors it provokes; stops with a non-zero code on a failure.
program library
  use, intrinsic :: iso_c_binding, only: c_double, c_float, c_double_complex, c_int, c_int64_t, &
      c_null_char, c_null_ptr, &
      c_ptr, c_associated, c_loc
  use tcgen
  use test_checks, only: failed, check, fill
  implicit none

  character(len=512) :: path

  call get_command_argument(1, path)
  call check('tcgen_version() is TC_MODULE_VERSION', tcgen_version() == TC_MODULE_VERSION)
  call check('tcgen_status_name(TC_EINPUT)', tcgen_status_name(TC_EINPUT) == 'bad input')
  call column_major()
  call row_major()
  call views()
  call other_types()
  call wisdom(trim(path))
  call errors()
  if (failed /= 0) then
    write (*, '(a, i0, a)') 'library: ', failed, ' checks FAILED'
    error stop 1
  end if
  write (*, '(a)') 'library: all checks ok'

contains

  ! The same contraction in complex(c_double_complex) (TC_COMPLEX, a complex
  ! alpha and beta through tc_execute_scaled) and real(c_float) (TC_SINGLE)
  ! against matmul; the typed kernel in the algorithm's name.
  subroutine other_types()
    integer, parameter :: na = 9, nb = 7, ni = 5
    complex(c_double_complex) :: Z(na, ni), W(ni, nb), X(na, nb), R(na, nb), al, be
    real(c_float) :: S(na, ni), T(ni, nb), Y(na, nb)
    real(c_double) :: re(na * ni), im(na * ni), rw(ni * nb), iw(ni * nb)
    type(c_ptr) :: plan
    type(tc_error) :: err
    call fill(re, size(re), 11)
    call fill(im, size(im), 12)
    call fill(rw, size(rw), 13)
    call fill(iw, size(iw), 14)
    Z = reshape(cmplx(re, im, c_double_complex), [na, ni])
    W = reshape(cmplx(rw, iw, c_double_complex), [ni, nb])
    X = (1.0_c_double, -1.0_c_double)
    al = (0.5_c_double, -1.5_c_double)
    be = (2.0_c_double, 0.25_c_double)
    R = al * matmul(Z, W) + be * X
    plan = tcgen_plan_create('C[a,b] += A[a,i] * B[i,b]', 'a=9,b=7,i=5', &
                             ior(TC_ESTIMATE, TC_COMPLEX), err)
    call check('TC_COMPLEX: a plan', c_associated(plan))
    if (.not. c_associated(plan)) return
    call check('TC_COMPLEX: a zgemm or other z kernel', &
               index(tcgen_plan_algorithm(plan), 'z') > 0)
    call check('TC_COMPLEX: tcgen_execute_scaled_z with complex alpha, beta', &
               tcgen_execute_scaled_z(plan, al, Z, W, be, X) == TC_OK)
    call check('TC_COMPLEX: C = alpha A B + beta C', &
               all(abs(X - R) <= 1e-13_c_double * (1 + abs(R))))
    call tcgen_plan_destroy(plan)
    S = real(real(Z), c_float)
    T = real(real(W), c_float)
    plan = tcgen_plan_create('C[a,b] = A[a,i] * B[i,b]', 'a=9,b=7,i=5', &
                             ior(TC_ESTIMATE, TC_SINGLE), err)
    call check('TC_SINGLE: a plan', c_associated(plan))
    if (.not. c_associated(plan)) return
    call check('TC_SINGLE: tcgen_execute_s on real(c_float)', &
               tcgen_execute_s(plan, S, T, Y) == TC_OK)
    call check('TC_SINGLE: C matches matmul', &
               all(abs(Y - matmul(S, T)) <= 1e-5_c_float * (1 + abs(matmul(S, T)))))
    call tcgen_plan_destroy(plan)
  end subroutine other_types

  ! C[a,b,c] = A[a,i] * B[i,b,c] by tcgen_plan_create and tcgen_execute.
  subroutine column_major()
    integer, parameter :: na = 5, nb = 6, nc = 7, ni = 4
    real(c_double), allocatable :: A(:, :), B(:, :, :), C(:, :, :), R(:, :, :)
    type(c_ptr) :: plan
    type(tc_error) :: err
    integer :: ia, ib, ic
    allocate (A(na, ni), B(ni, nb, nc), C(na, nb, nc), R(na, nb, nc))
    call fill(A, size(A), 1)
    call fill(B, size(B), 2)
    C = huge(1.0_c_double) ! "=": overwritten, never read
    do ic = 1, nc
      do ib = 1, nb
        do ia = 1, na
          R(ia, ib, ic) = sum(A(ia, :) * B(:, ib, ic))
        end do
      end do
    end do
    plan = tcgen_plan_create('C[a,b,c] = A[a,i] * B[i,b,c]', 'a=5,b=6,c=7,i=4', TC_ESTIMATE, err)
    call check('tcgen_plan_create: a plan', c_associated(plan))
    call check('tcgen_plan_create: err is TC_OK, no message', &
               err%code == TC_OK .and. tcgen_error_message(err) == '')
    if (.not. c_associated(plan)) return
    call check('tcgen_execute: TC_OK', tcgen_execute(plan, A, B, C) == TC_OK)
    call check('tcgen_execute: C matches the loops', all(abs(C - R) <= 1e-12_c_double * (1 + abs(R))))
    ! the same plan with scalars given now: C = -2 A B + 3 C = -2 R + 3 R = R
    call check('tc_execute_scaled: TC_OK', &
               tc_execute_scaled(plan, -2.0_c_double, A, B, 3.0_c_double, C) == TC_OK)
    call check('tc_execute_scaled: C = -2 A B + 3 C', &
               all(abs(C - R) <= 1e-12_c_double * (1 + abs(R))))
    write (*, '(2a)') 'algorithm: ', tcgen_plan_algorithm(plan)
    call check('tcgen_plan_algorithm: a name', len(tcgen_plan_algorithm(plan)) > 0)
    call check('tcgen_plan_origin: estimate', tcgen_plan_origin(plan) == 'estimate')
    call check('tc_plan_predicted_seconds > 0', tc_plan_predicted_seconds(plan) > 0)
    call tcgen_plan_destroy(plan)
    call check('tcgen_plan_destroy: plan null', .not. c_associated(plan))
  end subroutine column_major

  ! C[a,b] += 0.5 * A[a,i] * B[i,b] in C order through the bind(C)
  ! interfaces: Fortran sees each array with its indices reversed.
  subroutine row_major()
    integer, parameter :: na = 3, nb = 4, ni = 5
    real(c_double), allocatable :: A(:, :), B(:, :), C(:, :), R(:, :)
    type(c_ptr) :: plan
    type(tc_error) :: err
    integer :: ia, ib
    allocate (A(ni, na), B(nb, ni), C(nb, na), R(nb, na))
    call fill(A, size(A), 3)
    call fill(B, size(B), 4)
    call fill(C, size(C), 5)
    do ia = 1, na
      do ib = 1, nb
        R(ib, ia) = C(ib, ia) + 0.5_c_double * sum(A(:, ia) * B(ib, :))
      end do
    end do
    plan = tc_plan_create('C[a,b] += 0.5 * A[a,i] * B[i,b]' // c_null_char, &
                          'a=3,b=4,i=5' // c_null_char, ior(TC_ESTIMATE, TC_ROW_MAJOR), err)
    call check('tc_plan_create, TC_ROW_MAJOR: a plan', c_associated(plan))
    if (.not. c_associated(plan)) return
    call check('tc_execute: TC_OK', tc_execute(plan, A, B, C) == TC_OK)
    call check('tc_execute, row-major +=: C matches the loops', &
               all(abs(C - R) <= 1e-12_c_double * (1 + abs(R))))
    call tc_plan_destroy(plan)
  end subroutine row_major

  ! C(2:6, 2:4) of an 8 x 5 array = A(2:6, 2:5) of a 7 x 6 array * B, by
  ! tc_plan_create_views: the tiles given by their labels, extents and the
  ! big arrays' strides, executed in place from their first elements; the
  ! rest of the big C untouched.
  subroutine views()
    real(c_double), allocatable :: Abig(:, :), B(:, :), Cbig(:, :), R(:, :)
    integer(c_int64_t), target :: la(2), ea(2), sa(2), lb(2), eb(2), lc(2), ec(2), sc(2)
    type(tc_tensor_desc) :: dc, da, db
    type(c_ptr) :: plan
    type(tc_error) :: err
    allocate (Abig(7, 6), B(4, 3), Cbig(8, 5), R(8, 5))
    call fill(Abig, size(Abig), 6)
    call fill(B, size(B), 7)
    Cbig = -1
    R = -1
    R(2:6, 2:4) = matmul(Abig(2:6, 2:5), B)
    la = [1, 2]; ea = [5, 4]; sa = [1, 7]    ! labels a=1, i=2, b=3
    lb = [2, 3]; eb = [4, 3]
    lc = [1, 3]; ec = [5, 3]; sc = [1, 8]
    da = tc_tensor_desc(2, c_loc(la), c_loc(ea), c_loc(sa))
    db = tc_tensor_desc(2, c_loc(lb), c_loc(eb), c_null_ptr)
    dc = tc_tensor_desc(2, c_loc(lc), c_loc(ec), c_loc(sc))
    plan = tc_plan_create_views(dc, da, db, 1.0_c_double, 0.0_c_double, TC_ESTIMATE, err)
    call check('tc_plan_create_views: a plan', c_associated(plan))
    if (.not. c_associated(plan)) return
    call check('tc_execute on tiles: TC_OK', tc_execute(plan, Abig(2, 2), B, Cbig(2, 2)) == TC_OK)
    call check('tc_execute on tiles: the tile matches matmul, the rest untouched', &
               all(abs(Cbig - R) <= 1e-12_c_double * (1 + abs(R))))
    call tc_plan_destroy(plan)
    sa = [1, 4] ! overlapping columns: refused, the mode named
    plan = tc_plan_create_views(dc, da, db, 1.0_c_double, 0.0_c_double, TC_ESTIMATE, err)
    call check('tc_plan_create_views, overlapping: TC_EINPUT', &
               .not. c_associated(plan) .and. err%code == TC_EINPUT)
    write (*, '(2a)') 'error: ', tcgen_error_message(err)
  end subroutine views

  ! Wisdom out as a string and into a file, forgotten, taken back from each.
  subroutine wisdom(file)
    character(len=*), intent(in) :: file
    character(len=*), parameter :: x = 'X[p,q,r] = Y[p,t] * Z[t,q,r]', sizes = 'p=5,q=6,r=7,t=4'
    character(len=:), allocatable :: text, chosen
    type(c_ptr) :: plan
    type(tc_error) :: err
    plan = tcgen_plan_create(x, sizes, TC_ESTIMATE, err) ! a wisdom hit: column_major's problem
    call check('wisdom: the same structure planned from wisdom', tcgen_plan_origin(plan) == 'wisdom')
    chosen = tcgen_plan_algorithm(plan)
    call tcgen_plan_destroy(plan)
    text = tcgen_wisdom_export_string(err)
    call check('tcgen_wisdom_export_string: text', len(text) > 0 .and. err%code == TC_OK)
    call check('tcgen_wisdom_export_string: the canonical problem', &
               index(text, 'C[a,b,c] = A[a,d] * B[d,b,c]') > 0)
    call tc_wisdom_forget()
    plan = tcgen_plan_create(x, sizes, TC_WISDOM_ONLY, err)
    call check('after tc_wisdom_forget: TC_WISDOM_ONLY fails with TC_EINPUT', &
               .not. c_associated(plan) .and. err%code == TC_EINPUT)
    write (*, '(2a)') 'error: ', tcgen_error_message(err)
    call check('tcgen_wisdom_import_string: TC_OK', tcgen_wisdom_import_string(text, err) == TC_OK)
    plan = tcgen_plan_create(x, sizes, TC_WISDOM_ONLY, err)
    call check('imported string: planned from wisdom, the same algorithm', &
               tcgen_plan_origin(plan) == 'wisdom' .and. tcgen_plan_algorithm(plan) == chosen)
    call tcgen_plan_destroy(plan)
    call check('tcgen_wisdom_export_file: TC_OK', tcgen_wisdom_export_file(file, err) == TC_OK)
    call tc_wisdom_forget()
    call check('tcgen_wisdom_import_file: TC_OK', tcgen_wisdom_import_file(file, err) == TC_OK)
    plan = tcgen_plan_create(x, sizes, TC_WISDOM_ONLY, err)
    call check('imported file: planned from wisdom', tcgen_plan_origin(plan) == 'wisdom')
    call tcgen_plan_destroy(plan)
  end subroutine wisdom

  ! Bad input, a damaged wisdom text, a null plan, no err at all.
  subroutine errors()
    type(c_ptr) :: plan
    type(tc_error) :: err
    real(c_double) :: A(1), B(1), C(1)
    plan = tcgen_plan_create('C[a,b] = A[a,i] * B[i,b', 'a=b=i=4', TC_ESTIMATE, err)
    call check('a bad contraction: no plan, TC_EINPUT', &
               .not. c_associated(plan) .and. err%code == TC_EINPUT)
    call check('a bad contraction: line 1, a column', err%line == 1 .and. err%column > 0)
    write (*, '(2a)') 'error: ', tcgen_error_message(err)
    call check('a bad contraction: a message', len(tcgen_error_message(err)) > 0)
    call check('a damaged wisdom text: TC_EINPUT', &
               tcgen_wisdom_import_string('not wisdom', err) == TC_EINPUT)
    write (*, '(2a)') 'error: ', tcgen_error_message(err)
    plan = tcgen_plan_create('C[a] = A[a,i] * B[i]', 'a=4', TC_ESTIMATE)
    call check('no err: no plan, no crash', .not. c_associated(plan))
    A = 1
    B = 1
    C = 7
    call check('tcgen_execute on a null plan: TC_EUSAGE, C unchanged', &
               tcgen_execute(c_null_ptr, A, B, C) == TC_EUSAGE .and. nint(C(1)) == 7)
    call check('tcgen_status_name(TC_EUSAGE)', tcgen_status_name(TC_EUSAGE) == 'usage')
  end subroutine errors

end program library
